import type { WireResponse } from '../base/errors.ts'
import { readBytes } from '../base/read-bytes.ts'
import {
  bodyTooLarge,
  type IncomingRequest,
  maxBodyBytes,
  type WireRequest,
  whenAborted,
} from '../base/wire.ts'
import { failureInProcess } from './failure-in-process.ts'

/**
 * A Fetch `Request` as the mock's one path reads it, its body read only when asked, up to
 * {@link maxBodyBytes} and no further: a larger one is cancelled and flagged `bodyTooLarge`. A
 * body whose stream fails (its request aborted) reads as gone, and so does the call once its
 * signal aborts.
 *
 * @example
 * const incoming = fromFetchRequest(new Request('https://api.example.test/api/v1/users/identify'))
 */
export function fromFetchRequest(request: Request): IncomingRequest {
  const url = new URL(request.url)
  return {
    method: request.method,
    target: url.pathname + url.search,
    pathname: url.pathname,
    headers: request.headers,
    bodyAtHand: true,
    whenGone: whenAborted(request.signal),
    readBody: async () => {
      if (!request.body) return { body: null }
      try {
        const { bytes, complete } = await readBytes(request.body, maxBodyBytes)
        return complete ? { body: bytes } : bodyTooLarge
      } catch {
        return undefined
      }
    },
  }
}

/**
 * The mock's answer as `fetch` would give it in the same process: a `Response`, or the failure
 * that replaced it (see `failureInProcess`; a network error is `Response.error()`). `signal` is
 * the request's, which ends a hang.
 *
 * @example const response = await toFetchAnswer(await core.dispatch(request), request.signal)
 */
export function toFetchAnswer(
  wire: WireResponse,
  signal?: AbortSignal | null,
): Response | Promise<Response> {
  return wire.failure === undefined
    ? toFetchResponse(wire)
    : failureInProcess(wire, wire.failure, signal)
}

/**
 * The mock's answer as a Fetch `Response`.
 *
 * @example
 * const response = toFetchResponse({ status: 204, headers: {}, body: '' })
 */
function toFetchResponse(wire: WireResponse): Response {
  return new Response(wire.status === 204 ? null : wire.body, {
    status: wire.status,
    headers: wire.headers,
  })
}

/**
 * Whether `request` is a Fetch `Request` (of any realm, jsdom's included) rather than a
 * {@link WireRequest}.
 *
 * @example isFetchRequest(new Request('https://x.test/')) // true
 */
export function isFetchRequest(request: WireRequest | Request): request is Request {
  return typeof (request as Partial<Request>).url === 'string'
}
