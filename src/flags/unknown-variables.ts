/** A variable under the CLI's prefix that no option reads, and the one it most likely meant. */
export interface UnknownVariable {
  name: string
  closest?: string
}

/**
 * The variables of `env` whose name starts with `prefix` and that no option reads (`known`),
 * each with the known name closest to it when one is close (a few letters off, or swapped):
 * a misspelt variable would otherwise be ignored without a word.
 *
 * @example
 * unknownVariables({ IDENTIFY_API_MOCK_PROT: '1' }, 'IDENTIFY_API_MOCK_', ['IDENTIFY_API_MOCK_PORT'])
 * // [{ name: 'IDENTIFY_API_MOCK_PROT', closest: 'IDENTIFY_API_MOCK_PORT' }]
 */
export function unknownVariables(
  env: Readonly<Record<string, string | undefined>>,
  prefix: string,
  known: readonly string[],
): UnknownVariable[] {
  const knownNames = new Set(known)
  return Object.keys(env)
    .filter((name) => name.startsWith(prefix) && !knownNames.has(name))
    .sort()
    .map((name) => {
      const suffix = name.slice(prefix.length)
      let closest: string | undefined
      let best = Math.max(2, Math.floor(suffix.length / 3)) + 1
      for (const candidate of known) {
        const distance = editDistance(suffix, candidate.slice(prefix.length))
        if (distance < best) {
          best = distance
          closest = candidate
        }
      }
      return closest === undefined ? { name } : { name, closest }
    })
}

/** The edits (insert, delete, replace, swap of neighbours) that turn `a` into `b`. */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  )
  const at = (i: number, j: number) => rows[i]?.[j] ?? Number.POSITIVE_INFINITY
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const replace = at(i - 1, j - 1) + (a[i - 1] === b[j - 1] ? 0 : 1)
      let distance = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, replace)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        distance = Math.min(distance, at(i - 2, j - 2) + 1)
      }
      ;(rows[i] as number[])[j] = distance
    }
  }
  return at(a.length, b.length)
}
