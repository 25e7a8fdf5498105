import type { Gateway, GatewayName } from '../api/gateway.ts'
import type { WireResponse } from '../base/errors.ts'
import { type GatewayFailure, slowSchedule } from '../base/wire-failure.ts'
import type { TakenFault } from './faults.ts'
import { gatewayPage, type PageStatus } from './gateway-pages.ts'

/**
 * What `gateway` (nginx or haproxy) makes of the failure `fault` gave as `answer` (the failure
 * kinds describe the API's server, its upstream), as nginx 1.22 (`proxy_next_upstream off`) and
 * haproxy 2.6 do, measured from the real ones: a reset or an empty answer is its 502 page; a hang,
 * its 504 page at its read timeout, or its 502 at the hang's bound when that comes first; a slow
 * body behind nginx buffering, the whole answer once it is all there, or its headers only and the
 * connection closed when a pause between two pieces passes the read timeout; a gateway fault,
 * its own page for the status. A documented error row, a body cut short, and a slow body without
 * buffering pass as they are.
 *
 * @example throughGateway({ gateway: 'nginx', readTimeoutMs: 60_000, buffering: true }, fault, answer, new Date())
 */
export function throughGateway(
  gateway: Gateway,
  fault: TakenFault,
  answer: WireResponse,
  now: Date,
): WireResponse {
  if (gateway.gateway === 'none') return answer
  const name = gateway.gateway
  const page = (status: PageStatus, ms = 0, retryAfter?: string): WireResponse =>
    withFailure(answer, { kind: 'page', page: gatewayPage(name, status, retryAfter), ms })
  switch (fault.kind) {
    case 'status':
    case 'truncated':
      return answer
    case 'reset':
    case 'empty':
      return page(502)
    case 'hang':
      return gateway.readTimeoutMs < fault.delayMs
        ? page(504, gateway.readTimeoutMs)
        : page(502, fault.delayMs)
    case 'gateway':
      return page((fault.status ?? 502) as PageStatus, 0, retryAfterOf(fault, name, now))
    case 'slow':
      return gateway.buffering ? buffered(answer, fault.delayMs, gateway.readTimeoutMs) : answer
    default:
      return fault.kind satisfies never
  }
}

/**
 * A slow body as nginx buffering it gives it: whole at the end of its span, or, when a pause
 * between two pieces passes `readTimeoutMs`, the headers alone that long after the piece before
 * the pause, then the connection closed.
 */
function buffered(answer: WireResponse, spanMs: number, readTimeoutMs: number): WireResponse {
  const pieces = slowSchedule(new TextEncoder().encode(answer.body).byteLength, spanMs)
  for (let i = 1; i < pieces.length; i++) {
    const before = (pieces[i - 1] as { atMs: number }).atMs
    if ((pieces[i] as { atMs: number }).atMs - before > readTimeoutMs) {
      return withFailure(answer, { kind: 'buffered', ms: before + readTimeoutMs, cut: true })
    }
  }
  return withFailure(answer, { kind: 'buffered', ms: spanMs, cut: false })
}

const withFailure = (answer: WireResponse, failure: GatewayFailure): WireResponse => ({
  ...answer,
  failure,
})

/**
 * The `Retry-After` a gateway fault's page carries behind `gateway`: the seconds asked (with none
 * in front, a 429's default 1), none when asked for none or, behind nginx and haproxy, when not
 * asked for (they send none); written as an HTTP date that many seconds after `now` when asked so.
 *
 * @example retryAfterOf({ kind: 'gateway', status: 503, applied: false, delayMs: 0, retryAfterSeconds: 30, retryAfterAsked: true }, 'nginx', now) // '30'
 */
export function retryAfterOf(
  fault: TakenFault,
  gateway: GatewayName,
  now: Date,
): string | undefined {
  if (fault.retryAfterSeconds === null) return undefined
  if (gateway !== 'none' && !fault.retryAfterAsked) return undefined
  const seconds = fault.retryAfterSeconds ?? (fault.retryAfterDate ? 1 : undefined)
  if (seconds === undefined) return undefined
  return fault.retryAfterDate
    ? new Date(now.getTime() + seconds * 1000).toUTCString()
    : String(seconds)
}
