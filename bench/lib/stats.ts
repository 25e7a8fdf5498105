/** The median of `values` (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  if (sorted.length === 0) return Number.NaN
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2
}

/**
 * Runs every target `rounds` times, interleaved (A, B, A, B, …), so that a slow spell of a
 * shared machine falls on every target alike; returns each target's samples.
 */
export async function interleave<K extends string, T = number>(
  rounds: number,
  targets: Record<K, () => Promise<T>>,
): Promise<Record<K, T[]>> {
  const samples = Object.fromEntries(Object.keys(targets).map((k) => [k, [] as T[]])) as Record<
    K,
    T[]
  >
  for (let round = 0; round < rounds; round++) {
    for (const key of Object.keys(targets) as K[]) samples[key].push(await targets[key]())
  }
  return samples
}
