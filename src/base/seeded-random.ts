/**
 * FNV-1a over the parts, each ended by a NUL: a stable 32-bit number, the same on every runtime,
 * to start a {@link seededRandom} from a seed and the names it is for.
 *
 * @example hashOf(1, 'org-1') // the same number on every run
 */
export function hashOf(...parts: (string | number)[]): number {
  let hash = 0x811c9dc5
  for (const part of parts) {
    for (const char of `${part}\0`) {
      hash ^= char.codePointAt(0) ?? 0
      hash = Math.imul(hash, 0x01000193) >>> 0
    }
  }
  return hash
}

/**
 * Numbers in [0, 1) drawn from `state` (mulberry32: a small seeded generator, enough to shuffle a
 * dozen cases or draw a run's delays reproducibly; never for secrets).
 *
 * @example const next = seededRandom(hashOf(seed, orgId)); next() // 0.63…
 */
export function seededRandom(state: number): () => number {
  let current = state
  return () => {
    current = (current + 0x6d2b79f5) >>> 0
    let t = current
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
