import type { Gateway, GatewayName } from '../api/gateway.ts'
import { ApiError, toErrorResponse, type WireResponse } from '../base/errors.ts'
import { type FailureKindName, failureKinds } from './failure-kinds.ts'
import type { TakenFault } from './faults.ts'
import { retryAfterOf, throughGateway } from './gateway-answer.ts'
import type { JournaledFailure } from './journal.ts'
import type { ApiRoute } from './routes.ts'

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
 * with unsent (see `WireFailure`); then what `gateway` makes of it (see `throughGateway`). `now`
 * is the real time: a `Retry-After` date is read against the client's clock.
 */
export function failureAnswer(
  fault: TakenFault,
  real: WireResponse,
  route: ApiRoute,
  gateway: Gateway,
  now: Date,
): WireResponse {
  const answer = answerOf[fault.kind](fault, real, route, now)
  return gateway.gateway === 'none' ? answer : throughGateway(gateway, fault, answer, now)
}

/** Each kind's answer: a kind added to the table does not compile until it has one. */
const answerOf: {
  [K in FailureKindName]: (
    fault: TakenFault,
    real: WireResponse,
    route: ApiRoute,
    now: Date,
  ) => WireResponse
} = {
  status: (fault, real, route) =>
    fault.applied && fault.code !== undefined
      ? route.withHeaders(toErrorResponse(new ApiError(fault.code)))
      : real,
  gateway: (fault, _real, _route, now) =>
    gatewayAnswer(fault.status ?? 502, retryAfterOf(fault, 'none', now)),
  reset: (_fault, real) => ({ ...real, failure: { kind: 'reset' } }),
  empty: (_fault, real) => ({ ...real, failure: { kind: 'empty' } }),
  truncated: (_fault, real) => ({ ...real, failure: { kind: 'truncated' } }),
  hang: (fault, real) => ({ ...real, failure: { kind: 'hang', ms: fault.delayMs } }),
  slow: (fault, real) => ({ ...real, failure: { kind: 'slow', ms: fault.delayMs } }),
}

/**
 * What a gateway in front of the API answers with none named: the status, a short HTML page
 * naming it, never the API's `ErrorResponse`; `retryAfter` as its `Retry-After`.
 *
 * @example gatewayAnswer(502).body // '<!doctype html>…<h1>502 Bad Gateway</h1>…'
 */
function gatewayAnswer(status: number, retryAfter?: string): WireResponse {
  const reasons: Readonly<Record<number, string>> = failureKinds.gateway.statuses
  const title = `${status} ${reasons[status] ?? ''}`.trim()
  return {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      ...(retryAfter !== undefined && { 'retry-after': retryAfter }),
    },
    body: `<!doctype html>\n<html><head><title>${title}</title></head><body><h1>${title}</h1></body></html>\n`,
  }
}

/**
 * What the journal notes of a call `fault` answered with `answer`, behind `gateway`: the status
 * the client got is the page's when the gateway answered with one; a failure a chaos drew names
 * its case.
 */
export function journaledFailure(
  fault: TakenFault,
  answer: WireResponse,
  gateway: GatewayName,
): JournaledFailure {
  const { kind, status, applied } = fault
  const got = answer.failure?.kind === 'page' ? answer.failure.page.status : status
  return {
    kind,
    ...(got !== undefined && { status: got }),
    applied,
    ...(gateway !== 'none' && { gateway }),
    ...(fault.chaos && { case: fault.case as string, chaos: true as const }),
  }
}
