/**
 * Rows that cover every pair: for dimensions of `sizes[d]` forms each, a list of rows (a form
 * index per dimension) in which every form of every dimension appears, and every pair of forms
 * of two different dimensions appears together in at least one row.
 *
 * The in-parameter-order strategy (IPOG): every pair of the two dimensions with most forms, then
 * each further dimension in turn, given to the rows so far (each row the form that covers most of
 * its pairs not yet covered) and then, for the pairs still missing, to rows that leave a
 * dimension open or to new rows. Deterministic: the same sizes always give the same rows.
 *
 * @example pairwiseRows([2, 2, 2]) // [[0, 0, 0], [0, 1, 1], [1, 0, 1], [1, 1, 0]]
 */
export function pairwiseRows(sizes: readonly number[]): number[][] {
  const size = (d: number) => sizes[d] ?? 0
  if (sizes.some((s) => s < 1)) throw new RangeError('every dimension needs a form')
  const order = sizes.map((_, d) => d).sort((x, y) => size(y) - size(x) || x - y)
  const open = -1
  const rows: number[][] = []
  const [first, second] = order
  if (first === undefined) return []
  for (let a = 0; a < size(first); a++) {
    if (second === undefined) {
      rows.push(sizes.map((_, d) => (d === first ? a : open)))
      continue
    }
    for (let b = 0; b < size(second); b++) {
      rows.push(sizes.map((_, d) => (d === first ? a : d === second ? b : open)))
    }
  }
  const used = sizes.map((s) => new Array<number>(s).fill(0))
  for (const [index, k] of order.entries()) {
    if (index < 2) continue
    const earlier = order.slice(0, index)
    // The pairs of dimension k with each earlier one, still to cover: missing[d][a] holds k's forms.
    const missing = new Map<number, Set<number>[]>(
      earlier.map((d) => [
        d,
        Array.from(
          { length: size(d) },
          () => new Set(Array.from({ length: size(k) }, (_, b) => b)),
        ),
      ]),
    )
    const cover = (row: number[]) => {
      for (const d of earlier) {
        const a = row[d] ?? open
        if (a !== open) missing.get(d)?.[a]?.delete(row[k] ?? open)
      }
    }
    for (const row of rows) {
      let best = 0
      let bestScore = Number.NEGATIVE_INFINITY
      for (let b = 0; b < size(k); b++) {
        let covers = 0
        for (const d of earlier) {
          const a = row[d] ?? open
          if (a !== open && missing.get(d)?.[a]?.has(b)) covers++
        }
        // Most new pairs; among equals, the form used least so far, then the first.
        const score = covers * 1_000_000 - (used[k]?.[b] ?? 0)
        if (score > bestScore) {
          best = b
          bestScore = score
        }
      }
      row[k] = best
      const counts = used[k]
      if (counts) counts[best] = (counts[best] ?? 0) + 1
      cover(row)
    }
    for (const d of earlier) {
      missing.get(d)?.forEach((forms, a) => {
        for (const b of forms) {
          const row = rows.find((r) => r[k] === b && r[d] === open)
          if (row) row[d] = a
          else rows.push(sizes.map((_, e) => (e === d ? a : e === k ? b : open)))
        }
      })
    }
  }
  // A dimension a row leaves open may take any form: the first.
  return rows.map((row) => row.map((form) => (form === open ? 0 : form)))
}
