import { bodyTooLarge, maxBodyBytes, type WireRequest } from '../base/wire.ts'
import { toFetchResponse } from './fetch-adapter.ts'
import type { MockCore } from './mock-core.ts'

/** A standard `fetch` whose requests go straight to one mock's `dispatch`. */
export type MockFetch = (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>

/**
 * A `fetch` bound to `core`: every request goes straight to its `dispatch`, with no interception
 * and no socket, so it works wherever `Request` and `Response` exist (Node, browsers, workers).
 * It answers any origin unless `baseUrl` pins one; a request to another origin then rejects with
 * a `TypeError`, as a network error does. An aborted `signal` rejects with its reason.
 *
 * @example
 * const client = createClient<paths>({ baseUrl: 'https://api.example.test', fetch: api.fetch })
 */
export function createMockFetch(core: MockCore, baseUrl?: string): MockFetch {
  const base = baseUrl?.replace(/\/+$/, '')
  return async (input, init) => {
    const plain = plainRequestOf(input, init)
    const request = plain ? undefined : new Request(input, init)
    const url = plain?.url.href ?? (request as Request).url
    if (base !== undefined && !isUnder(url, base)) {
      // The origin only: the path and the query may carry a token.
      const { origin } = new URL(url)
      throw new TypeError(
        `fetch failed: a request to ${origin} is not under this mock's baseUrl ${base}`,
      )
    }
    const signal = plain ? init?.signal : request?.signal
    signal?.throwIfAborted()
    const response = await core.dispatch(plain?.wire ?? (request as Request))
    signal?.throwIfAborted()
    return toFetchResponse(response)
  }
}

function isUnder(url: string, base: string): boolean {
  return url.startsWith(base) && /^(?:[/?#]|$)/.test(url.slice(base.length))
}

/**
 * The methods a `Request` takes in any case and sends upper-cased, by their lower-case spelling
 * (`toLowerCase` maps no other character to a letter of these six).
 */
const normalisedMethods = new Map(
  ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT'].map((method) => [
    method.toLowerCase(),
    method,
  ]),
)

/** The members of a `RequestInit` the plain path reads; any other sends the call through `Request`. */
const plainInitMembers = new Set(['method', 'headers', 'body', 'signal'])

const encoder = new TextEncoder()

/**
 * The request a `fetch(input, init)` call makes, read straight from its arguments when they are
 * the common case (a string or `URL`, a string body or none, a method `Request` would only
 * upper-case, nothing else in `init`): what a `Request` would hold, its URL parsed once and its
 * body encoded at once rather than streamed. `undefined` for anything else, which then goes
 * through a real `Request` (and gets its `TypeError`s).
 */
function plainRequestOf(
  input: RequestInfo | URL,
  init: RequestInit | undefined,
): { url: URL; wire: WireRequest } | undefined {
  if (typeof input !== 'string' && !(input instanceof URL)) return undefined
  if (init) {
    for (const member in init) if (!plainInitMembers.has(member)) return undefined
  }
  const given = init?.method ?? 'GET'
  const method = typeof given === 'string' ? normalisedMethods.get(given.toLowerCase()) : undefined
  const body = init?.body ?? null
  if (method === undefined || (body !== null && typeof body !== 'string')) return undefined
  if (body !== null && (method === 'GET' || method === 'HEAD')) return undefined
  const url = URL.parse(typeof input === 'string' ? input : input.href)
  // A URL with credentials is refused by `Request`, which says so.
  if (url === null || url.username !== '' || url.password !== '') return undefined
  const headers = new Headers(init?.headers)
  if (body !== null && !headers.has('content-type')) {
    headers.set('content-type', 'text/plain;charset=UTF-8')
  }
  const bytes = body === null ? null : encoder.encode(body)
  const read = bytes && bytes.byteLength > maxBodyBytes ? bodyTooLarge : { body: bytes }
  return { url, wire: { method, target: url.pathname + url.search, headers, ...read } }
}
