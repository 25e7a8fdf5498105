import { type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http'
import { type Duplex, Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { ApiError, toErrorResponse, type WireResponse } from '../base/errors.ts'
import { defaultSourceShare, noSource, type Shares, type Source } from '../base/shares.ts'
import {
  bodyTooLarge,
  type IncomingRequest,
  incomingOf,
  maxBodyBytes,
  pathnameOf,
  type RequestBody,
  type WireRequest,
} from '../base/wire.ts'
import { type ControlOptions, createControlHandler } from '../control/control.ts'
import type { MockCore } from '../core/mock-core.ts'
import { answerOpenApi } from '../core/openapi.ts'
import { siteRowOf } from '../core/site.ts'
import { bodyBudget } from './body-budget.ts'
import type { ConnectionPool } from './connection-pool.ts'
import { writeFailure } from './failure-on-socket.ts'
import { type FrontDoorPolicy, guardAnswer } from './front-door.ts'
import { closesOnNextRequest } from './gateway-on-socket.ts'
import type { SplitOptions } from './server-options.ts'

/**
 * What the request listener takes: the server's `listener` options (see `serverOptionGroups`),
 * whole, and what the server adds.
 */
export interface ListenerOptions extends Partial<SplitOptions['listener']> {
  /**
   * How long a connection whose body was refused as too large stays open after the answer, the
   * rest of the upload discarded, so that a client still sending can read the 400 before the
   * connection closes. Closing at once would reset the connection with the client's unread data
   * and could destroy the answer in flight.
   */
  lingerMs?: number
  /**
   * The server's open connections (`ConnectionPool`): how many, each request's start and end on
   * its connection, and its source.
   */
  connections?: Pick<ConnectionPool, 'size' | 'busy' | 'charge' | 'done'>
  /** The share of the budget of bodies being read one source holds at most (the option `sourceShare`). */
  sourceShare?: number
  /** Called once each answer is given: the server gives memory back then (see `memoryReleaser`). */
  answered?: () => void
}

/** No connections counted: a listener used without a server's pool. */
const uncounted = { size: 0, busy() {}, charge() {}, done() {} }

/** The mock, its control endpoints and the front door, answering one request. */
export interface SiteAnswer {
  /** The answer; `undefined` when the client went away before its body was read. Never rejects. */
  answer: (request: IncomingRequest) => Promise<WireResponse | undefined>
}

/**
 * The mock, its control endpoints and its OpenAPI document behind one function and the server's
 * front door (the `Host` rule, absolute targets, CORS), as every adapter below calls them. Each
 * request passes the front door once; each part reads the body itself: the mock's only for a call
 * that may have one, the controls once the request is let in, `/openapi.json` never.
 */
export function createAnswer(
  core: MockCore,
  options: { control?: ControlOptions; frontDoor?: FrontDoorPolicy } = {},
): SiteAnswer {
  // Each reads the body itself, if at all: the controls once the request is let in.
  const served = {
    control: createControlHandler(core, options.control),
    openapi: async (request: IncomingRequest) => answerOpenApi(request.method),
  }
  const { frontDoor = { allowedHosts: [], cors: [] } } = options
  const guarded = guardAnswer((request: IncomingRequest) => {
    const row = siteRowOf(request.pathname)
    return row.by === 'dispatch' ? core.answer(request, row) : served[row.part](request)
  }, frontDoor)
  return {
    // Never rejects nor throws: every failure is an answer.
    answer: (request) => {
      try {
        return guarded(request).catch(toErrorResponse)
      } catch (error) {
        return Promise.resolve(toErrorResponse(error))
      }
    },
  }
}

/**
 * The `node:http` adapter: turns a Node request into an {@link IncomingRequest} whose body it
 * reads when asked (within the body limit and the budget of bodies being read), asks the site
 * and writes the answer back. It builds no Fetch `Request` and runs no MSW matching, yet answers
 * with the very code the MSW handlers call.
 *
 * A body left unread (a refused call) or cut off as too large closes the connection after the
 * answer, the rest of the upload discarded for `lingerMs`; one past the budget gets its 503 and
 * the connection is closed at once. It never lets an error escape (an unhandled rejection would
 * stop the server): a client that goes away mid-request gets no answer, and a failure to write
 * one closes the connection.
 */
export function createRequestListener(site: SiteAnswer, options: ListenerOptions = {}) {
  const { lingerMs = 1000, maxRequestsPerSocket = 0, maxConnections = Infinity } = options
  const { connections = uncounted, sourceShare = defaultSourceShare, answered } = options
  const requestsOf = new WeakMap<object, number>()
  const bodies = bodyBudget(sourceShare)
  const unavailable = toErrorResponse(new ApiError('serviceUnavailable'))
  return (req: IncomingMessage, res: ServerResponse) => {
    let last = false
    if (maxRequestsPerSocket > 0) {
      const count = (requestsOf.get(req.socket) ?? 0) + 1
      requestsOf.set(req.socket, count)
      last = count >= maxRequestsPerSocket
    }
    if (connections.size > maxConnections) {
      writeResponse(res, unavailable, { close: true })
      res.once('finish', () => req.socket.destroy())
      return
    }
    const hasBody =
      req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length']) > 0
    let read: BodyRead = hasBody ? 'unread' : 'read'
    const { socket } = req
    // Charged to none until the mock names the source its credentials gave.
    let source = noSource
    const readBody = async () => {
      if (!hasBody) return { body: null }
      const outcome = await readBodyOf(req, bodies, source)
      read = outcome.read
      if (outcome.read === 'overBudget') throw new ApiError('serviceUnavailable')
      return outcome.body
    }
    const write = (response: WireResponse | undefined) => {
      // The client has gone (or its connection gave way): nothing to write, nothing to start.
      if (!response || read === 'gone' || socket.destroyed) return
      if (response.failure) writeFailure(res, response, response.failure)
      else if (read === 'overBudget') {
        writeResponse(res, response, { close: true })
        res.once('finish', () => req.socket.destroy())
      } else if (read === 'unread' || read === 'tooLarge') {
        writeResponse(res, response, { close: true, lingerMs })
      } else writeResponse(res, response, { close: last })
    }
    const request = {
      ...requestLine(req),
      bodyAtHand: false,
      readBody,
      chargeTo: (charged: Source) => {
        source = charged
        connections.charge(socket, charged)
      },
      whenGone: (listener: () => void) => {
        if (socket.destroyed) {
          listener()
          return () => {}
        }
        socket.once('close', listener)
        return () => socket.off('close', listener)
      },
    }
    // After a gateway's page that said nothing of it, the gateway closed the connection.
    if (closesOnNextRequest(socket, request.pathname)) {
      socket.destroy()
      return
    }
    const answer = async () => {
      let response: WireResponse | undefined
      try {
        response = await site.answer(request)
        write(response)
      } catch {
        res.destroy()
      }
      answered?.()
      // A failure ends with its connection closed (a hang, a slow body): under way until then;
      // one whose answer keeps it (a gateway's page), until that is written.
      if (!response?.failure) connections.done(socket)
      else res.once('finish', () => connections.done(socket))
    }
    connections.busy(socket, () => giveWay(res, unavailable))
    // Node calls this listener while it is still parsing the request: a body sent with its
    // headers, as a small one is, waits whole in the stream's buffer a microtask later. Asked
    // then, the mock takes it from there (if it reads it at all) rather than listening for it.
    if (hasBody) queueMicrotask(answer)
    else void answer()
  }
}

/**
 * Closes the connection of `res` to make room for another (see `ConnectionPool`): its request
 * answered `unavailable` (503) first when no byte of an answer has been written.
 */
function giveWay(res: ServerResponse, unavailable: WireResponse): void {
  const { socket } = res
  if (res.headersSent || res.destroyed || !socket || socket.destroyed) {
    socket?.destroy()
    return
  }
  writeResponse(res, unavailable, { close: true })
  res.once('finish', () => socket.destroy())
}

/**
 * Answers a `CONNECT` request like any other (the mock tunnels nothing, so it gets the JSON 404 or
 * 405 its target calls for), then closes the connection. Node hands it over as a bare socket, and
 * without this listener would drop it unanswered.
 */
export function createConnectListener(answer: SiteAnswer['answer']) {
  return (req: IncomingMessage, socket: Duplex) => {
    socket.on('error', () => socket.destroy())
    Promise.resolve(answer(incomingOf({ ...requestLine(req), body: null })))
      .then((response) => {
        if (response && socket.writable) socket.end(rawResponse(response))
        else socket.destroy()
      })
      .catch(() => socket.destroy())
  }
}

/** Answers an `Expect` header other than `100-continue`: 417, and the connection closed. */
export function answerExpectation(_req: IncomingMessage, res: ServerResponse): void {
  writeResponse(res, toErrorResponse(new ApiError('expectationFailed')), { close: true })
}

/**
 * The answer to a request Node refuses before it reaches the mock: a malformed request, headers
 * over Node's size limit, or a client too slow to send its headers or its body.
 */
export function clientErrorResponse(error: NodeJS.ErrnoException): WireResponse {
  const code =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? 'requestTimeout'
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? 'headerFieldsTooLarge'
        : 'badRequest'
  return toErrorResponse(new ApiError(code))
}

/** A whole HTTP/1.1 response, for a socket no `ServerResponse` writes to; it closes the connection. */
export function rawResponse(response: WireResponse): string {
  const headers = {
    ...response.headers,
    'content-length': String(Buffer.byteLength(response.body)),
    connection: 'close',
  }
  const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`)
  const reason = STATUS_CODES[response.status] ?? ''
  return `HTTP/1.1 ${response.status} ${reason}\r\n${head.join('')}\r\n${response.body}`
}

function requestLine(req: IncomingMessage): Omit<WireRequest, 'body'> & { pathname: string } {
  const target = req.url ?? '/'
  return {
    method: req.method ?? 'GET',
    target,
    pathname: pathnameOf(target),
    headers: new NodeHeaders(req),
  }
}

/** A Node request's headers as the mock reads them: one object, no closure, per request. */
class NodeHeaders {
  readonly #req: IncomingMessage
  constructor(req: IncomingMessage) {
    this.#req = req
  }

  get(name: string): string | null {
    const key = name.toLowerCase()
    // Node keeps the first of two Host lines only: the front door must see both to refuse them.
    if (key === 'host') return hostLines(this.#req.rawHeaders)
    const value = this.#req.headers[key]
    return Array.isArray(value) ? value.join(', ') : (value ?? null)
  }
}

/** Every `Host` field line of a request, joined as HTTP joins a repeated field; `null` if none. */
function hostLines(rawHeaders: readonly string[]): string | null {
  let joined: string | null = null
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] as string
    if (name.length !== 4 || name.toLowerCase() !== 'host') continue
    const value = rawHeaders[i + 1] ?? ''
    joined = joined === null ? value : `${joined}, ${value}`
  }
  return joined
}

/** Where the body of a request stands: `unread` until the site asks for it. */
type BodyRead = 'unread' | 'read' | 'tooLarge' | 'overBudget' | 'gone'

/**
 * Reads the body up to the limit. Past it, or when `Content-Length` announces more, it keeps
 * nothing and flags the body as too large at once; `gone` when the client went away first.
 * What it holds counts against `bodies`, the budget shared by every request being read, and
 * against the share of its `source`, whose credential let it in (a body is read only once the
 * credentials passed): a body past either is not read (`overBudget`).
 */
function readBodyOf(
  req: IncomingMessage,
  bodies: Shares,
  source: Source,
): { read: BodyRead; body?: RequestBody } | Promise<{ read: BodyRead; body?: RequestBody }> {
  const announced = Number(req.headers['content-length'])
  if (announced > maxBodyBytes) return tooLarge
  // The announced length is held from the start: a client that sends all but a few bytes and
  // waits must not slip past the budget.
  const held = Number.isInteger(announced) && announced > 0 ? announced : 0
  // A body that came whole with its headers is taken from the stream's buffer, not listened for.
  if (held > 0 && req.readableLength === held) {
    return { read: 'read', body: { body: req.read(held) as Buffer } }
  }
  if (!bodies.take(source, held)) return { read: 'overBudget' }
  return streamBody(req, bodies, source, held)
}

const tooLarge = { read: 'tooLarge', body: bodyTooLarge } as const

/**
 * {@link readBodyOf} for a body still on its way: read as it comes, `announced` bytes held for
 * `source` already.
 */
function streamBody(
  req: IncomingMessage,
  bodies: Shares,
  source: Source,
  announced: number,
): Promise<{ read: BodyRead; body?: RequestBody }> {
  let held = announced
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    let size = 0
    const settle = (outcome: { read: BodyRead; body?: RequestBody }) => {
      req.off('data', onData)
      req.off('end', onEnd)
      req.off('error', onGone)
      req.off('close', onGone)
      chunks.length = 0
      bodies.give(source, held)
      held = 0
      resolve(outcome)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength
      if (size > held) {
        if (!bodies.take(source, size - held)) return settle({ read: 'overBudget' })
        held = size
      }
      if (size <= maxBodyBytes) chunks.push(chunk)
      else settle(tooLarge)
    }
    const onEnd = () =>
      settle({ read: 'read', body: { body: size > 0 ? Buffer.concat(chunks) : null } })
    const onGone = () => settle({ read: 'gone' })
    req.on('data', onData)
    req.on('end', onEnd)
    req.on('error', onGone)
    req.on('close', onGone)
  })
}

/**
 * Writes the answer. `close` ends the connection after it (Node closes the socket once a response
 * says `Connection: close`); `lingerMs` first lets the client finish reading it.
 */
function writeResponse(
  res: ServerResponse,
  response: WireResponse,
  { close, lingerMs }: { close: boolean; lingerMs?: number },
) {
  if (res.headersSent || res.destroyed) return
  if ('chunks' in response) {
    // A body written as it is made (`GET /__mock/state`): chunked, at the pace the client reads.
    res.writeHead(response.status, { ...response.headers, ...(close && { connection: 'close' }) })
    // A HEAD's answer has no body: not one piece of it is made.
    if (res.req.method === 'HEAD') {
      res.end()
      return
    }
    pipeline(Readable.from(response.chunks as AsyncIterable<string>), res).catch(() =>
      res.destroy(),
    )
    return
  }
  const body = response.status === 204 ? '' : response.body
  // A flat list of names and values: Node writes it as it is, with no object made per answer.
  const head: (string | number)[] = []
  for (const name in response.headers) {
    if (name !== 'content-length' && name !== 'connection') {
      head.push(name, response.headers[name] as string)
    }
  }
  if (response.status !== 204) head.push('content-length', Buffer.byteLength(body))
  if (close) head.push('connection', 'close')
  res.writeHead(response.status, head)
  if (lingerMs === undefined || res.req.complete) {
    res.end(body)
    return
  }
  // The answer is complete (its length is sent), but ending the response would close the socket
  // at once. Discard the rest of the upload instead, and close when it ends or the linger is over.
  res.write(body)
  const { req } = res
  const finish = () => {
    clearTimeout(timer)
    if (!res.writableEnded) res.end()
  }
  const timer = setTimeout(finish, lingerMs)
  timer.unref()
  req.once('end', finish)
  res.once('close', () => clearTimeout(timer))
  req.resume()
}
