import { ApiError, toErrorResponse, type WireResponse } from '../base/errors.ts'
import { type FailureKindName, failureKinds } from './failure-kinds.ts'
import type { TakenFault } from './faults.ts'
import type { ApiRoute } from './routes.ts'

/**
 * What the journal notes of a call a fault answered: its kind, its status (of the kinds that take
 * one) and whether the call took its effect first.
 *
 * @example { kind: 'reset', applied: true }
 */
export interface JournaledFailure {
  kind: FailureKindName
  status?: number
  applied: boolean
  /** Of a failure a chaos drew: the case it drew. */
  case?: string
  chaos?: true
}

/**
 * What a call that takes a fault not applied answers instead of running: the fault's documented
 * error row (thrown, through the one error exit, as every fault before), or, for the others, no
 * answer of its own (the failure's status, or 0 when it sends none), which {@link failureAnswer}
 * replaces.
 */
export function unanswered(fault: TakenFault): WireResponse {
  if (fault.code !== undefined) throw new ApiError(fault.code)
  return { status: fault.status ?? 0, headers: {}, body: '' }
}

/**
 * The answer a call that took `fault` gives, once it has taken its whole effect (kept, and
 * committed to a state file) or none: `real` is its own answer (its rule's, or
 * {@link unanswered}'s), which `truncated` and `slow` carry and the other enacted kinds travel
 * with unsent (see `WireFailure`).
 */
export function failureAnswer(
  fault: TakenFault,
  real: WireResponse,
  route: ApiRoute,
): WireResponse {
  return answerOf[fault.kind](fault, real, route)
}

/** Each kind's answer: a kind added to the table does not compile until it has one. */
const answerOf: {
  [K in FailureKindName]: (fault: TakenFault, real: WireResponse, route: ApiRoute) => WireResponse
} = {
  status: (fault, real, route) =>
    fault.applied && fault.code !== undefined
      ? route.withHeaders(toErrorResponse(new ApiError(fault.code)))
      : real,
  gateway: (fault) => gatewayAnswer(fault.status ?? 502, fault.retryAfterSeconds),
  reset: (_fault, real) => ({ ...real, failure: { kind: 'reset' } }),
  empty: (_fault, real) => ({ ...real, failure: { kind: 'empty' } }),
  truncated: (_fault, real) => ({ ...real, failure: { kind: 'truncated' } }),
  hang: (fault, real) => ({ ...real, failure: { kind: 'hang', ms: fault.delayMs } }),
  slow: (fault, real) => ({ ...real, failure: { kind: 'slow', ms: fault.delayMs } }),
}

/**
 * What a gateway in front of the API answers: the status, a short HTML page naming it, never the
 * API's `ErrorResponse`; a 429 with `Retry-After`.
 *
 * @example gatewayAnswer(502).body // '<!doctype html>…<h1>502 Bad Gateway</h1>…'
 */
export function gatewayAnswer(status: number, retryAfterSeconds?: number): WireResponse {
  const reasons: Readonly<Record<number, string>> = failureKinds.gateway.statuses
  const title = `${status} ${reasons[status] ?? ''}`.trim()
  return {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      ...(retryAfterSeconds !== undefined && { 'retry-after': String(retryAfterSeconds) }),
    },
    body: `<!doctype html>\n<html><head><title>${title}</title></head><body><h1>${title}</h1></body></html>\n`,
  }
}

/** What the journal notes of a call `fault` answered. */
export function journaledFailure(fault: TakenFault): JournaledFailure {
  const { kind, status, applied } = fault
  const noted: JournaledFailure =
    status === undefined ? { kind, applied } : { kind, status, applied }
  return fault.chaos ? { ...noted, case: fault.case as string, chaos: true } : noted
}
