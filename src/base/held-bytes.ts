/**
 * The bytes a string holds in memory: a character each when all are Latin-1 (the engine stores it
 * one byte a character), two each otherwise. What the journal and the fault queue count.
 *
 * @example heldBytes('abc') // 3; heldBytes('a€') // 4
 */
export function heldBytes(text: string): number {
  return /[^\0-\xff]/.test(text) ? 2 * text.length : text.length
}
