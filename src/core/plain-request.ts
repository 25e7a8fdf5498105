import { bodyTooLarge, type IncomingRequest, maxBodyBytes, whenAborted } from '../base/wire.ts'

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
 * upper-case, headers that are a `Headers` or a plain record a `Headers` keeps as given, nothing
 * else in `init`): what a `Request` would hold, its URL parsed once and its body encoded at once
 * rather than streamed. `undefined` for anything else, which then goes through a real `Request`
 * (and gets its `TypeError`s, with their messages). A `Request` for every call costs more: it
 * copies its headers into a `Headers`, and its body is a stream read back.
 *
 * @example plainRequestOf('https://api.example.test/api/v1/users/identify', { method: 'POST', headers, body }) // { href, incoming }
 */
export function plainRequestOf(
  input: RequestInfo | URL,
  init: RequestInit | undefined,
): { href: string; incoming: IncomingRequest } | undefined {
  if (typeof input !== 'string' && !(input instanceof URL)) return undefined
  if (init) {
    for (const member in init) if (!plainInitMembers.has(member)) return undefined
    // Anything but an `AbortSignal` is refused by `Request`, which says so.
    if (init.signal != null && !(init.signal instanceof AbortSignal)) return undefined
  }
  const asked = init?.method ?? 'GET'
  const method = typeof asked === 'string' ? normalisedMethods.get(asked.toLowerCase()) : undefined
  const body = init?.body ?? null
  if (method === undefined || (body !== null && typeof body !== 'string')) return undefined
  if (body !== null && (method === 'GET' || method === 'HEAD')) return undefined
  const url = plainUrlOf(typeof input === 'string' ? input : input.href)
  if (url === undefined) return undefined
  const given = init?.headers
  // A `Headers` is copied as a `Request` copies it; other headers it would refuse or rewrite are
  // left to it, to answer or refuse with its own message.
  const headers = given instanceof Headers ? new Headers(given) : plainHeadersOf(given)
  if (headers === undefined) return undefined
  if (body !== null && !headers.has('content-type')) {
    headers.set('content-type', 'text/plain;charset=UTF-8')
  }
  const bytes = body === null ? null : encoder.encode(body)
  const read = bytes && bytes.byteLength > maxBodyBytes ? bodyTooLarge : { body: bytes }
  const { href, target, pathname } = url
  const incoming: IncomingRequest = {
    method,
    target,
    pathname,
    headers,
    bodyAtHand: true,
    readBody: async () => read,
  }
  // A call whose caller aborts ends at once (see `whenGone`).
  if (init?.signal) incoming.whenGone = whenAborted(init.signal)
  return { href, incoming }
}

/** What the plain path reads of a URL: its serialisation, its target (path and query) and path. */
interface PlainUrl {
  href: string
  target: string
  pathname: string
}

/**
 * The URLs read lately, by the text given (a test calls the same few URLs again and again): at
 * most {@link maxPlainUrls} of them, each at most {@link maxPlainUrlLength} characters long, and
 * none with a query or a fragment (the web view's carries a sign-in token, which the process must
 * not keep past its call). Parsing is a pure function of the text, so an entry never goes stale.
 */
const plainUrls = new Map<string, PlainUrl | undefined>()
const maxPlainUrls = 64
const maxPlainUrlLength = 2048

/**
 * `text` parsed as an absolute URL, as a `Request` would parse it; `undefined` for one a
 * `Request` refuses (not absolute, or with credentials, which it says so of).
 */
function plainUrlOf(text: string): PlainUrl | undefined {
  if (plainUrls.has(text)) return plainUrls.get(text)
  const url = URL.parse(text)
  const plain =
    url === null || url.username !== '' || url.password !== ''
      ? undefined
      : { href: url.href, target: url.pathname + url.search, pathname: url.pathname }
  if (text.length <= maxPlainUrlLength && !text.includes('?') && !text.includes('#')) {
    if (plainUrls.size >= maxPlainUrls) plainUrls.clear()
    plainUrls.set(text, plain)
  }
  return plain
}

/** A header name: an HTTP token. */
const tokenPattern = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/

/**
 * A header value a `Headers` keeps exactly as given: visible ASCII, spaces only within (a
 * `Headers` strips surrounding whitespace, refuses line breaks and NUL, and takes bytes past
 * ASCII as Latin-1: those values go to a real `Headers`).
 */
const plainValuePattern = /^(?:[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?)?$/

/**
 * Request headers read from a plain record, by lower-case name: only what the mock reads of them.
 * Cheaper to build and to read than a `Headers` of the same record (bench/README.md, "The request
 * path's speed pieces"), and read alike: the record is taken only when a `Headers` would keep it
 * exactly as given.
 */
class PlainHeaders {
  readonly #values: Map<string, string>

  constructor(values: Map<string, string>) {
    this.#values = values
  }

  get(name: string): string | null {
    return this.#values.get(name.toLowerCase()) ?? null
  }

  has(name: string): boolean {
    return this.#values.has(name.toLowerCase())
  }

  set(name: string, value: string): void {
    this.#values.set(name.toLowerCase(), value)
  }
}

/**
 * `given` read as `new Headers(given)` would read it, when it is the common case: none, or a
 * plain object whose every own property is enumerable and a string value a `Headers` keeps as
 * given, under a token name no other property spells in another case. `undefined` for anything
 * else (pairs, a name or value a `Headers` refuses or rewrites).
 */
function plainHeadersOf(given: HeadersInit | undefined): PlainHeaders | undefined {
  const values = new Map<string, string>()
  if (given === undefined) return new PlainHeaders(values)
  if (typeof given !== 'object' || given === null) return undefined
  const prototype = Object.getPrototypeOf(given)
  if (prototype !== Object.prototype && prototype !== null) return undefined
  if (Object.getOwnPropertySymbols(given).length > 0) return undefined
  const names = Object.getOwnPropertyNames(given)
  // Node's `Headers` reads a property that is not enumerable, a browser's does not: left to it.
  if (Object.keys(given).length !== names.length) return undefined
  for (const name of names) {
    const value = (given as Record<string, unknown>)[name]
    if (typeof value !== 'string' || !tokenPattern.test(name) || !plainValuePattern.test(value)) {
      return undefined
    }
    const key = name.toLowerCase()
    if (values.has(key)) return undefined
    values.set(key, value)
  }
  return new PlainHeaders(values)
}
