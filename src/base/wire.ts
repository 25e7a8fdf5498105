import type { z } from 'zod'
import { ApiError, type WireResponse } from './errors.ts'

/** Answers one request, never by throwing: what every part of the site and the front door are. */
export type Responder = (request: WireRequest) => Promise<WireResponse>

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

/** The path of a request target, without its query. */
export function pathnameOf(target: string): string {
  const end = target.search(/[?#]/)
  return end === -1 ? target : target.slice(0, end)
}
