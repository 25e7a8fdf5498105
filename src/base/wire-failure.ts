/**
 * What a transport does instead of writing an answer whole, when a failure replaced it (see
 * `failureKinds`): the response it travels with is the call's real answer, which `truncated` and
 * `slow` carry and the others never send. `ms` is a hang's bound and a slow body's span.
 *
 * @example const response: WireResponse = { ...answer, failure: { kind: 'hang', ms: 30_000 } }
 */
export type WireFailure =
  | { readonly kind: 'reset' | 'empty' | 'truncated' }
  | { readonly kind: 'hang' | 'slow'; readonly ms: number }

/**
 * How many bytes of a body of `length` a truncated answer sends: about half, so that a client
 * reading its `content-length` waits for the rest; none of a body of one byte.
 *
 * @example truncatedLength(51) // 25
 */
export function truncatedLength(length: number): number {
  return Math.floor(length / 2)
}

/** The most pieces a slow body is written in. */
const slowPieces = 8

/**
 * Where a slow body of `length` bytes is cut, and when each piece goes, spread over `ms`: the
 * headers and the first piece at once (a client sees the answer begin), the last piece at `ms`.
 *
 * @example slowSchedule(16, 700) // [{ end: 2, atMs: 0 }, { end: 4, atMs: 100 }, …, { end: 16, atMs: 700 }]
 */
export function slowSchedule(length: number, ms: number): { end: number; atMs: number }[] {
  const pieces = Math.max(2, Math.min(slowPieces, length))
  return Array.from({ length: pieces }, (_, i) => ({
    end: Math.round((length * (i + 1)) / pieces),
    atMs: Math.round((ms * i) / (pieces - 1)),
  }))
}
