/**
 * The deepest a JSON value the mock keeps or sends may nest (a journaled body, an event's data):
 * no body of the API nests this deep, and walking a deeper one would cost the stack.
 *
 * @example isNestedDeeperThan(JSON.parse('[[[]]]'), maxJsonDepth) // false
 */
export const maxJsonDepth = 64

/**
 * Whether `value` has arrays or objects nested more than `max` levels deep. Recurses at most
 * `max` levels, whatever the value.
 *
 * @example isNestedDeeperThan({ a: [[1]] }, 2) // true
 */
export function isNestedDeeperThan(value: unknown, max: number): boolean {
  if (value === null || typeof value !== 'object') return false
  if (max === 0) return true
  const children = Array.isArray(value) ? value : Object.values(value)
  return children.some((child) => isNestedDeeperThan(child, max - 1))
}
