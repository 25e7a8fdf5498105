import type { WireResponse } from '../base/errors.ts'
import { readBytes } from '../base/read-bytes.ts'
import { maxBodyBytes, type WireRequest } from '../base/wire.ts'

/**
 * A Fetch `Request` as the mock's transport-free `dispatch` reads it. The body is read up to
 * {@link maxBodyBytes} and no further: a larger one is cancelled and flagged `bodyTooLarge`.
 *
 * @example
 * const wire = await toWireRequest(new Request('https://api.example.test/api/v1/users/identify'))
 */
export async function toWireRequest(request: Request): Promise<WireRequest> {
  const url = new URL(request.url)
  const base = {
    method: request.method,
    target: url.pathname + url.search,
    headers: request.headers,
  }
  if (!request.body) return { ...base, body: null }
  const { bytes, complete } = await readBytes(request.body, maxBodyBytes)
  return complete ? { ...base, body: bytes } : { ...base, body: null, bodyTooLarge: true }
}

/**
 * The mock's answer as a Fetch `Response`.
 *
 * @example
 * const response = toFetchResponse({ status: 204, headers: {}, body: '' })
 */
export function toFetchResponse(wire: WireResponse): Response {
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
