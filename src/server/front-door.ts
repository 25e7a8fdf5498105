import { isIP } from 'node:net'
import * as z from 'zod'
import { ApiError, toErrorResponse, type WireResponse } from '../base/errors.ts'
import { remembered } from '../base/remembered.ts'
import { pathnameOf, type RequestHead } from '../base/wire.ts'
import { methodsAt } from '../core/routes.ts'
import { siteRowOf } from '../core/site.ts'
import { webViewErrorPage } from '../web-view/answer.ts'

/**
 * A host name as a `Host` header or an absolute target names it (a name, an IPv4 address, or an
 * IPv6 address in brackets, then an optional port), normalised as URLs normalise it; `undefined`
 * for anything else (a user part, a path, a list of hosts).
 */
function hostnameOf(authority: string): string | undefined {
  if (!/^(?:[a-z0-9.-]+|\[[0-9a-f:.]+\])(?::\d{0,5})?$/i.test(authority)) return undefined
  try {
    return new URL(`http://${authority}`).hostname
  } catch {
    return undefined
  }
}

/**
 * Whether an address (or `Host` name) reaches this machine only: `localhost`, 127.0.0.0/8 or
 * `::1`, IPv4-mapped forms included.
 *
 * @example isLoopbackAddress('127.0.0.1') // true; isLoopbackAddress('0.0.0.0') // false
 */
export function isLoopbackAddress(address: string): boolean {
  const name = address.toLowerCase().replace(/^\[(.*)\]$/, '$1')
  return (
    name === 'localhost' ||
    name === '::1' ||
    /^(?:::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name) ||
    /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(name)
  )
}

/** The `--allowed-host` that turns the `Host` check off. */
const anyHost = 'any'

/**
 * An `--allowed-host` entry, normalised: a host name (`mock.internal`), a domain with its
 * subdomains (`.example.test`), or `any`; `undefined` for anything else (a port, a URL).
 */
function allowedHostOf(entry: string): string | undefined {
  if (entry.toLowerCase() === anyHost) return anyHost
  const domain = entry.startsWith('.')
  const name = hostnameOf(domain ? entry.slice(1) : entry)
  if (name === undefined || entry.includes(':')) return undefined
  return domain ? `.${name}` : name
}

/**
 * The standalone server's options for who may talk to it, as `startServer` takes them (and the
 * CLI's `--allowed-host` and `--cors`).
 *
 * @example
 * frontDoorOptionsSchema.parse({ allowedHosts: ['Mock.LAN'], cors: ['http://localhost:5173'] })
 * // { allowedHosts: ['mock.lan'], cors: ['http://localhost:5173'] }
 */
export const frontDoorOptionsSchema = z.object({
  allowedHosts: z
    .array(
      z
        .string()
        .refine((entry) => allowedHostOf(entry) !== undefined, {
          message:
            'expected a host name without a port (e.g. mock.internal), .domain for a domain and its subdomains, or any',
        })
        .transform((entry) => allowedHostOf(entry) as string),
    )
    .default([])
    .describe(
      'Host names answered besides localhost, *.localhost and IP addresses (any port): mock.internal, .example.test for it and its subdomains, or any for every name; others get 403',
    ),
  cors: z
    .array(
      z.string().refine((origin) => URL.parse(origin)?.origin === origin, {
        message: 'expected an origin, e.g. http://localhost:5173',
      }),
    )
    .default([])
    .describe('origins of browser apps allowed to call the API, e.g. http://localhost:5173'),
})

export type FrontDoorPolicy = z.output<typeof frontDoorOptionsSchema>

/** Whether `allowedHosts` (as the schema gives them) turn the `Host` check off. */
export function admitsAnyHost(allowedHosts: readonly string[]): boolean {
  return allowedHosts.includes(anyHost)
}

/**
 * Vite's `server.allowedHosts` rule, on every interface: `localhost`, names under `.localhost`
 * and IP address literals (a rebinding page needs a name it controls), then `allowedHosts`.
 */
function hostRule(allowedHosts: readonly string[]): (hostname: string | undefined) => boolean {
  if (admitsAnyHost(allowedHosts)) return () => true
  return (hostname) => {
    if (hostname === undefined) return false
    if (hostname === 'localhost' || hostname.endsWith('.localhost')) return true
    if (isIP(hostname.replace(/^\[(.*)\]$/, '$1')) !== 0) return true
    return allowedHosts.some((allowed) =>
      allowed.startsWith('.')
        ? hostname === allowed.slice(1) || hostname.endsWith(allowed)
        : hostname === allowed,
    )
  }
}

/**
 * Whether the host rule admits the `Host` value `authority`, remembered per value for 256 values:
 * a client sends the same one on every request, and parsing it (a pattern, a URL, an IP check)
 * cost more than the rest of the front door.
 */
function admitsAuthority(admits: (hostname: string | undefined) => boolean) {
  return remembered((authority: string) => admits(hostnameOf(authority)), 256)
}

/** The headers a CORS preflight is answered with, besides the origin and the methods. */
const preflightHeaders = {
  'access-control-allow-headers': 'authorization, content-type',
  'access-control-max-age': '600',
  vary: 'Origin',
}

/**
 * The server's front door around `answer`: every request, whatever its route, passes it first.
 * It answers 400 to a request without one `Host`, 403 to a `Host` the policy does not admit (DNS
 * rebinding), reads an absolute-form target (`http://host/path`) as its path with its authority
 * as the `Host`, and answers CORS for the `cors` origins on the API's routes.
 *
 * @example
 * const guarded = guardAnswer(answer, { allowedHosts: [], cors: [] })
 */
export function guardAnswer<
  R extends RequestHead & { pathname: string },
  A extends WireResponse | undefined,
>(
  answer: (request: R) => Promise<A>,
  policy: FrontDoorPolicy,
): (request: R) => Promise<A | WireResponse> {
  const admits = admitsAuthority(hostRule(policy.allowedHosts))
  /** The request as it goes in, with the origin CORS allows it, or the front door's own answer. */
  const gate = (raw: R): { request: R; cors?: string } | WireResponse => {
    const host = raw.headers.get('host')
    // Repeated field lines reach the adapter joined by commas; a Host is never a list.
    if (!host || host.includes(',')) return toErrorResponse(new ApiError('badRequest'))
    const absolute = originForm(raw)
    const request = absolute?.request ?? raw
    if (!admits(absolute?.authority ?? host)) return forbidden(request)
    const origin = request.headers.get('origin')
    // Only the API's routes have methods here: CORS is never answered for another part.
    const apiMethods =
      origin !== null && policy.cors.includes(origin) ? methodsAt(request.pathname) : []
    if (origin === null || apiMethods.length === 0) return { request }
    if (!isPreflight(request)) return { request, cors: origin }
    return {
      status: 204,
      headers: {
        ...preflightHeaders,
        'access-control-allow-origin': origin,
        'access-control-allow-methods': apiMethods.join(', '),
      },
      body: '',
    }
  }
  return (raw) => {
    const passed = gate(raw)
    if ('status' in passed) return Promise.resolve(passed)
    const { request, cors } = passed
    if (cors === undefined) return answer(request)
    return answer(request).then(
      (response) =>
        response && {
          ...response,
          headers: { ...response.headers, 'access-control-allow-origin': cors, vary: 'Origin' },
        },
    )
  }
}

/**
 * An absolute-form target (`http://127.0.0.1:4010/api/…`) as the origin-form request it stands
 * for, with its authority, which takes the place of `Host` (RFC 9112, 3.2.2); `undefined` for
 * any other.
 */
function originForm<R extends RequestHead & { pathname: string }>(
  request: R,
): { request: R; authority: string } | undefined {
  // The usual target, a path, is known at its first character.
  if (request.target.startsWith('/')) return undefined
  const match = /^http:\/\/([^/?#]*)(.*)$/is.exec(request.target)
  if (!match) return undefined
  const [, authority = '', rest = ''] = match
  const target = rest.startsWith('/') ? rest : `/${rest}`
  const headers = {
    get: (name: string) => (name.toLowerCase() === 'host' ? authority : request.headers.get(name)),
  }
  return { request: { ...request, target, pathname: pathnameOf(target), headers }, authority }
}

function isPreflight(request: RequestHead): boolean {
  return (
    request.method === 'OPTIONS' && request.headers.get('access-control-request-method') !== null
  )
}

/** 403 `Forbidden`: an HTML page for the web view, JSON everywhere else. */
function forbidden(request: { pathname: string }): WireResponse {
  if (siteRowOf(request.pathname).part === 'webView') {
    return webViewErrorPage(new ApiError('forbidden'))
  }
  return toErrorResponse(new ApiError('forbidden'))
}
