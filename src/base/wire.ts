import type * as z from 'zod'
import { ApiError } from './errors.ts'
import type { Source } from './shares.ts'

/** The largest request body the API accepts, in bytes. */
export const maxBodyBytes = 1024 * 1024

/**
 * A request as every transport hands it to the mock: what the MSW handlers read from a Fetch
 * `Request` and the standalone server from a `node:http` request, nothing more.
 */
export interface WireRequest {
  method: string
  /** The path and query as sent, still percent-encoded. */
  target: string
  headers: { get(name: string): string | null }
  /** The body's bytes; `null` when there is none. */
  body: Uint8Array | null
  /** The transport stopped reading a body larger than {@link maxBodyBytes}. */
  bodyTooLarge?: boolean
}

/** A request's method, target and headers: what is known of it before its body is read. */
export type RequestHead = Omit<WireRequest, 'body' | 'bodyTooLarge'>

/** A request's body as its transport read it: {@link WireRequest}'s `body` and `bodyTooLarge`. */
export type RequestBody = Pick<WireRequest, 'body' | 'bodyTooLarge'>

/**
 * {@link IncomingRequest.whenGone} for a caller's `signal` (in the same process): its `abort`.
 * The listener is removed once called or no longer wanted, so a signal a test shares across
 * calls keeps none of them.
 *
 * @example const incoming = { ...request, whenGone: whenAborted(signal) }
 */
export function whenAborted(signal: AbortSignal): (listener: () => void) => () => void {
  return (listener) => {
    if (signal.aborted) {
      listener()
      return () => {}
    }
    signal.addEventListener('abort', listener, { once: true })
    return () => signal.removeEventListener('abort', listener)
  }
}

/** A body past {@link maxBodyBytes}, as every transport reports one: not read, and the flag. */
export const bodyTooLarge = { body: null, bodyTooLarge: true } as const satisfies RequestBody

/**
 * A request as a transport hands it to the mock's one path before reading its body: the mock
 * checks the route and the credentials first, then asks for the body only when the call may have
 * one, so that a refused call never costs a body.
 *
 * @example
 * const request: IncomingRequest = { method: 'DELETE', target: '/api/v1/users/org-1/u-1', headers, bodyAtHand: true, readBody: async () => ({ body: null }) }
 */
export interface IncomingRequest extends RequestHead {
  /** The target's path without its query, still percent-encoded: read once, by the transport. */
  pathname: string
  /**
   * Reads the body, at most {@link maxBodyBytes} of it (past that, `bodyTooLarge`), once.
   * `undefined` when the client went away before it was sent: nothing is answered nor journaled.
   * Rejects with an `ApiError` the transport answers instead (the server's 503 past its budget of
   * bodies being read).
   */
  readBody(): Promise<RequestBody | undefined>
  /**
   * Whether the transport holds the body already (a Fetch `Request` in the same process): it is
   * then read in the call's turn, so that calls made one after another are answered in that
   * order. The standalone server's is `false`: it reads a body before the call's turn, so that a
   * slow upload holds no other call back. A refused call's body is read on neither.
   */
  bodyAtHand: boolean
  /**
   * Told the request's source once it is known (its credentials passed, see `Source`): the
   * transport charges what the request holds (its connection, its body) to it. None by default.
   */
  chargeTo?(source: Source): void
  /**
   * Calls `listener` once the client has gone (the socket closed, the caller's signal aborted), at
   * once if it has; the function returned stops listening. A call whose client has gone ends at
   * once.
   */
  whenGone?(listener: () => void): () => void
}

/**
 * `request`, its body already read, as the mock's one path takes a request.
 *
 * @example incomingOf({ method: 'GET', target: '/webview', headers, body: null })
 */
export function incomingOf(request: WireRequest): IncomingRequest {
  const { body, bodyTooLarge, ...head } = request
  return {
    ...head,
    pathname: pathnameOf(head.target),
    bodyAtHand: true,
    readBody: async () => ({ body, ...(bodyTooLarge && { bodyTooLarge }) }),
  }
}

const decoder = new TextDecoder('utf-8', { fatal: true })

/**
 * The JSON value of a body's bytes; `undefined` when they are not UTF-8 JSON.
 *
 * @example parseJsonBytes(new TextEncoder().encode('{"id":"a"}')) // { id: 'a' }
 */
export function parseJsonBytes(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(decoder.decode(bytes))
  } catch {
    return undefined
  }
}

/**
 * A JSON body read with `schema`: `Content-Type: application/json` (parameters allowed), at most
 * 1 MiB, valid UTF-8, matching the schema. Anything else is a 400 `Invalid request parameters`.
 * `json` is the body already parsed by {@link parseJsonBytes}, when the caller has it.
 *
 * @example parseJsonBody(request, identifyUserRequestSchema) // { id: 'u-1', orgId: 'org-1' }
 */
export function parseJsonBody<S extends z.ZodType>(
  request: WireRequest,
  schema: S,
  json?: unknown,
): z.output<S> {
  const { body } = request
  if (mediaTypeOf(request) !== 'application/json' || !body || request.bodyTooLarge) {
    throw new ApiError('invalidRequest')
  }
  if (body.byteLength > maxBodyBytes) throw new ApiError('invalidRequest')
  const value = json ?? parseJsonBytes(body)
  if (value === undefined) throw new ApiError('invalidRequest')
  const parsed = schema.safeParse(value)
  if (!parsed.success) throw new ApiError('invalidRequest')
  return parsed.data
}

/**
 * The media type of a request's `Content-Type`, lowercase and without its parameters;
 * `undefined` when it has none.
 *
 * @example mediaTypeOf(request) // 'application/json' for `Application/JSON; charset=utf-8`
 */
export function mediaTypeOf(request: WireRequest): string | undefined {
  const header = request.headers.get('content-type')
  if (header === null) return undefined
  const end = header.indexOf(';')
  return trimOptionalWhitespace(end === -1 ? header : header.slice(0, end)).toLowerCase()
}

/**
 * `text` without the spaces and tabs (HTTP's optional whitespace) around it, in one pass: a
 * regular expression such as `/^[ \t]+|[ \t]+$/g` rescans a run of spaces from each of its
 * characters (quadratic on `a` + 16,000 spaces + `x`), and String#trim would also strip a
 * no-break space.
 *
 * @example trimOptionalWhitespace(' \tapplication/json ') // 'application/json'
 */
function trimOptionalWhitespace(text: string): string {
  let start = 0
  let end = text.length
  while (start < end && isOptionalWhitespace(text.charCodeAt(start))) start++
  while (end > start && isOptionalWhitespace(text.charCodeAt(end - 1))) end--
  return text.slice(start, end)
}

const isOptionalWhitespace = (code: number) => code === 0x20 || code === 0x09

/**
 * The `Allow` header of a resource that answers `methods`: `HEAD` wherever `GET` is, since a
 * `HEAD` is answered as the `GET` would be, without its body and without side effects.
 *
 * @example allowHeader(['GET']) // 'GET, HEAD'
 */
export function allowHeader(methods: readonly string[]): string {
  return (methods.includes('GET') ? [...methods, 'HEAD'] : methods).join(', ')
}

/**
 * The path of a request target, without its query (every request asks for it more than once, so
 * it is one scan, no pattern).
 *
 * @example pathnameOf('/api/v1/users/identify?x=1') // '/api/v1/users/identify'
 */
export function pathnameOf(target: string): string {
  for (let i = 0; i < target.length; i++) {
    const code = target.charCodeAt(i)
    if (code === 0x3f || code === 0x23) return target.slice(0, i)
  }
  return target
}
