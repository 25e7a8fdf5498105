import type { ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { WireResponse } from '../base/errors.ts'
import { type GatewayFailure, type GatewayPage, pageHeaders } from '../base/wire-failure.ts'
import { apiPrefixes } from '../core/routes.ts'

/** The connections whose next API request a gateway's page said nothing of: closed, with no byte. */
const closingOnNext = new WeakSet<Socket>()

/**
 * Whether the request on `socket` to `pathname` comes after a page whose gateway then closes the
 * connection (haproxy's 502, 503 and 504): the request listener closes it, with no byte, and
 * answers nothing (the request never reaches the API). The gateway stands in front of the API
 * only: a control request on the same connection is answered.
 *
 * @example if (closesOnNextRequest(req.socket, pathname)) return req.socket.destroy()
 */
export function closesOnNextRequest(socket: Socket, pathname: string): boolean {
  return (
    closingOnNext.has(socket) && apiPrefixes.some((prefix) => pathname.startsWith(`${prefix}/`))
  )
}

/**
 * Gives on the connection of `res` what a gateway makes of a failure (see `throughGateway`):
 * after `ms`, its page byte for byte (the connection kept, or closed at the next API request),
 * or an answer it buffered: whole, or its status line and headers only and the connection closed.
 * The wait ends with the socket: a client that closes its side meanwhile finds it destroyed, and no
 * timer outlives it.
 *
 * @example writeGatewayFailure(res, response, { kind: 'page', page, ms: 60_000 })
 */
export function writeGatewayFailure(
  res: ServerResponse,
  response: WireResponse,
  failure: GatewayFailure,
): void {
  const { socket } = res
  if (!socket) return
  const write = () => {
    if (res.headersSent || socket.destroyed) return
    if (failure.kind === 'page') writePage(res, socket, failure.page)
    else writeBuffered(res, socket, response, failure.cut)
  }
  if (failure.ms <= 0) {
    write()
    return
  }
  // The client gave up: its side is closed, and nothing more will come.
  const gone = () => socket.destroy()
  const stop = () => clearTimeout(timer)
  const timer = setTimeout(() => {
    // A kept connection carries no listener of this answer past it.
    socket.off('end', gone)
    socket.off('close', stop)
    write()
  }, failure.ms)
  socket.once('close', stop)
  socket.once('end', gone)
}

/**
 * Writes `page` as its gateway does, its head byte for byte: Node keeps or closes the connection by
 * its own rules, but writes the page's status line and headers instead of its own (with no `Date`,
 * `Connection` or `Keep-Alive` of its making). Node sends a response's head as `_header`, which it
 * builds in `writeHead`: replaced there, in this one place
 * (`test/server/failures-behind-a-gateway.test.ts` pins the bytes).
 */
function writePage(res: ServerResponse, socket: Socket, page: GatewayPage): void {
  const headers = pageHeaders(page, new Date())
  res.writeHead(page.status, page.reason, headers.flat())
  const head = headers.map(([name, value]) => `${name}: ${value}\r\n`).join('')
  ;(res as unknown as { _header: string })._header =
    `HTTP/1.1 ${page.status} ${page.reason}\r\n${head}\r\n`
  res.end(page.body)
  if (page.connection === 'next') closingOnNext.add(socket)
}

/** `response` as a buffering gateway sends it: whole, or (`cut`) its head only, then a FIN. */
function writeBuffered(
  res: ServerResponse,
  socket: Socket,
  response: WireResponse,
  cut: boolean,
): void {
  const body = Buffer.from(response.body)
  res.writeHead(response.status, {
    ...response.headers,
    'content-length': String(body.byteLength),
  })
  if (!cut) {
    res.end(body)
    return
  }
  res.flushHeaders()
  socket.end(() => socket.destroy())
}
