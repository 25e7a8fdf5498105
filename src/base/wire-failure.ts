/**
 * What a transport does instead of writing an answer whole, when a failure replaced it (see
 * `failureKinds`): the response it travels with is the call's real answer, which `truncated` and
 * `slow` carry and the others never send. `ms` is a hang's bound and a slow body's span.
 *
 * @example const response: WireResponse = { ...answer, failure: { kind: 'hang', ms: 30_000 } }
 */
export type WireFailure = KindFailure | GatewayFailure

/** The failure kinds as the API's own server gives them (see `failureKinds`). */
export type KindFailure =
  | { readonly kind: 'reset' | 'empty' | 'truncated' }
  | { readonly kind: 'hang' | 'slow'; readonly ms: number }

/**
 * What a gateway in front of the API makes of a failure (see `throughGateway`): its own `page`
 * after `ms` (at once for a reset, at its read timeout for a hang), or an answer nginx buffered:
 * the whole answer at `ms`, or (`cut`) its status line and headers only, then the connection
 * closed.
 */
export type GatewayFailure =
  | { readonly kind: 'page'; readonly page: GatewayPage; readonly ms: number }
  | { readonly kind: 'buffered'; readonly ms: number; readonly cut: boolean }

/**
 * A gateway's own page, byte for byte as the real one writes it: the reason phrase of its status
 * line, its headers in order (a header without a value is `Date`'s, the instant it is written), its
 * body; and what it does with the connection after: `keep` it, or close it, with no byte, when the
 * client's `next` request comes (haproxy's, which says nothing of it).
 */
export interface GatewayPage {
  readonly status: number
  readonly reason: string
  readonly headers: readonly (readonly [name: string, value?: string])[]
  readonly body: string
  readonly connection: 'keep' | 'next'
}

/**
 * The headers of `page` as written at `now`: `Date` given its value.
 *
 * @example pageHeaders(page, new Date()) // [['Server', 'nginx'], ['Date', 'Wed, 02 Dec 2026 03:57:17 GMT'], …]
 */
export function pageHeaders(page: GatewayPage, now: Date): [string, string][] {
  return page.headers.map(([name, value]) => [name, value ?? now.toUTCString()])
}

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
