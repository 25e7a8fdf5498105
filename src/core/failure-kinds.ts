import type { KindFailure } from '../base/wire-failure.ts'

/**
 * Which `applied` values a fault of a kind may take, the first its default: `either` (`false`, the
 * call changes nothing; or `true`, it takes its whole effect and then loses its answer),
 * `always` (the failure carries the real answer, so the call has taken effect), `for500` (a
 * documented status: only a 500 may follow a call that took effect; a 400, 403 or 404 never does).
 */
export type AppliedRule = 'either' | 'always' | 'for500'

/** What `delayMs` is to a kind: a wait `before` its answer, the `bound` of a hang, the `span` of a slow body. */
export type DelayRole = 'before' | 'bound' | 'span'

/** One kind of failure, as {@link failureKinds} declares it. */
export interface FailureKind {
  /** What the client meets, in one line (the guide's table and the inspector read it). */
  readonly summary: string
  /**
   * The statuses a fault of the kind takes: the operation's `documented` error rows, or its own
   * (each with its reason phrase); none when it sends no status.
   */
  readonly statuses?: 'documented' | Readonly<Record<number, string>>
  readonly applied: AppliedRule
  readonly delay: { readonly role: DelayRole; readonly defaultMs: number }
  /**
   * `answer`: a response the transport writes as it is; `enacted`: what the transport does instead
   * of writing the response whole (see `WireFailure`).
   */
  readonly wire: 'answer' | 'enacted'
  /** On the standalone server. */
  readonly server: string
  /** In-process: the MSW handlers and `api.fetch`. */
  readonly inProcess: string
}

/**
 * Every kind of failure a client meets between it and the API, declared once: the fault schema,
 * the failure cases, the answers and each transport's enactment, the guide's table, the inspector
 * and the client read this table. `status` is today's fault (a documented error row); the others
 * stand for the network and the gateways in front of the real API.
 *
 * @example failureKinds.hang.delay.defaultMs // 30000
 */
export const failureKinds = {
  status: {
    summary:
      "One of the operation's documented error rows, with its exact body: the kind when `kind` is absent.",
    statuses: 'documented',
    applied: 'for500',
    delay: { role: 'before', defaultMs: 0 },
    wire: 'answer',
    server: 'The error answer, `{code, message}`.',
    inProcess: 'The same answer.',
  },
  reset: {
    summary: 'The connection dropped with no answer.',
    applied: 'either',
    delay: { role: 'before', defaultMs: 0 },
    wire: 'enacted',
    server: 'The connection reset (an RST, `socket.resetAndDestroy()`) with no byte written.',
    inProcess: 'The network error `fetch` gives (a `TypeError`; `Response.error()` in a handler).',
  },
  hang: {
    summary: 'No answer until the client gives up, ended in any case at `delayMs`.',
    applied: 'either',
    delay: { role: 'bound', defaultMs: 30_000 },
    wire: 'enacted',
    server:
      'No byte until the client closes or `delayMs` passes, then the socket destroyed; no timer left behind.',
    inProcess:
      "Settles only when the request's `AbortSignal` aborts (rejecting with its reason) or at `delayMs` (a network error).",
  },
  truncated: {
    summary: 'The real answer cut short: its status and headers, half its body, then nothing.',
    applied: 'always',
    delay: { role: 'before', defaultMs: 0 },
    wire: 'enacted',
    server:
      "The real answer's status line and headers (its `content-length` included), half its body, then the socket destroyed.",
    inProcess:
      'The real status and headers, and a body stream that errors after half (a `TypeError`).',
  },
  empty: {
    summary: 'The connection closed after the request, with no byte sent.',
    applied: 'either',
    delay: { role: 'before', defaultMs: 0 },
    wire: 'enacted',
    server: 'The connection ended (a FIN) with no byte.',
    inProcess: 'As `reset`: `fetch` cannot tell them apart.',
  },
  gateway: {
    summary:
      "An answer from what stands in front of the API, in the gateway's words: never an `ErrorResponse`.",
    statuses: {
      429: 'Too Many Requests',
      502: 'Bad Gateway',
      503: 'Service Unavailable',
      504: 'Gateway Timeout',
    },
    applied: 'either',
    delay: { role: 'before', defaultMs: 0 },
    wire: 'answer',
    server:
      "The status asked, `content-type: text/html; charset=utf-8`, a short page naming it; a 429 or 503 may carry `Retry-After` (`retryAfterSeconds`, a 429 1 by default; `retryAfterDate`; `null` for none). Behind nginx or haproxy, that gateway's own page.",
    inProcess: 'The same answer.',
  },
  slow: {
    summary:
      "The real answer, its body sent in pieces spread over `delayMs` (a client's read timeout).",
    applied: 'always',
    delay: { role: 'span', defaultMs: 2_000 },
    wire: 'enacted',
    server:
      "The real answer's status and headers at once, its body written in pieces over `delayMs`.",
    inProcess:
      'The real status and headers, and a body stream that gives the pieces over `delayMs`.',
  },
} as const satisfies Record<string, FailureKind>

export type FailureKindName = keyof typeof failureKinds

/** The kinds the transport enacts: exactly those `KindFailure` names (checked below). */
type EnactedKind = {
  [K in FailureKindName]: (typeof failureKinds)[K]['wire'] extends 'enacted' ? K : never
}[FailureKindName]

/** Fails to compile when the table and `KindFailure` name different kinds as enacted. */
const sameEnactedKinds: [EnactedKind, KindFailure['kind']] extends [
  KindFailure['kind'],
  EnactedKind,
]
  ? true
  : never = true
void sameEnactedKinds

/** The kinds in the table's order. */
export const failureKindNames = Object.keys(failureKinds) as [FailureKindName, ...FailureKindName[]]

/**
 * The `applied` values a fault of `kind` with `status` may take, its default first.
 *
 * @example appliedValues('status', 404) // [false]
 */
export function appliedValues(kind: FailureKindName, status?: number): readonly boolean[] {
  const rule: AppliedRule = failureKinds[kind].applied
  if (rule === 'always') return [true]
  return rule === 'for500' && status !== 500 ? [false] : [false, true]
}
