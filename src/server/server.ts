import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { z } from 'zod'
import { seedDataset } from '../../fixtures/seed.ts'
import { describeIssues } from '../errors.ts'
import { MockCore } from '../mock-core.ts'
import type { MockApiOptions } from '../options.ts'
import { frontDoorOptionsSchema, isLoopbackAddress } from './front-door.ts'
import {
  answerExpectation,
  clientErrorResponse,
  createAnswer,
  createConnectListener,
  createRequestListener,
  rawResponse,
} from './listener.ts'
import { createStateFileStore } from './state-store.ts'

export interface ServerOptions extends MockApiOptions {
  /** 0 picks a free port. */
  port?: number
  host?: string
  /** `false` answers every `/__mock` request 404, as if the control endpoints did not exist. */
  control?: boolean
  /** Requires `Authorization: Bearer <controlToken>` on every `/__mock` request (401 otherwise). */
  controlToken?: string
  /**
   * Host names answered besides the loopback ones (any port). Bound to loopback, any other `Host`
   * gets 403; bound elsewhere, any `Host` is answered unless this is given.
   */
  allowedHosts?: string[]
  /** Origins of browser apps allowed to call the API (CORS), e.g. `http://localhost:5173`. */
  cors?: string[]
  /** A client must have sent its request headers within this time (408 and closed otherwise). */
  headersTimeoutMs?: number
  /** A client must have sent its whole request within this time (408 and closed otherwise). */
  requestTimeoutMs?: number
  /** An idle keep-alive connection is closed after this time. */
  keepAliveTimeoutMs?: number
  /** A connection is closed after this many requests (0: no limit). */
  maxRequestsPerSocket?: number
  /**
   * Keeps the records in this file: loaded at start (with `organisations` applied on top), and
   * every change written to disk before it is answered.
   */
  stateFile?: string
}

/** The limits a long-running server needs against slow or greedy clients, with their defaults. */
const limitsSchema = z
  .object({
    headersTimeoutMs: z.int().min(1).default(10_000),
    requestTimeoutMs: z.int().min(1).default(30_000),
    keepAliveTimeoutMs: z.int().min(1).default(5_000),
    maxRequestsPerSocket: z.int().min(0).default(1_000),
  })
  .refine((limits) => limits.headersTimeoutMs <= limits.requestTimeoutMs, {
    message: 'must not be longer than requestTimeoutMs',
    path: ['headersTimeoutMs'],
  })

/** `options` parsed by `schema`; a `TypeError` that says what is wrong otherwise. */
function resolveWith<T extends z.ZodType>(schema: T, options: z.input<T>): z.output<T> {
  const parsed = schema.safeParse(options)
  if (!parsed.success)
    throw new TypeError(`Invalid options: ${describeIssues(parsed.error.issues)}`)
  return parsed.data
}

/** A running standalone server. */
export interface RunningServer {
  /** `http://HOST:PORT` */
  url: string
  core: MockCore
  server: Server
  /** Stops the server, and cancels the webhook deliveries queued or waiting for a retry. */
  close(): Promise<void>
}

/** A listen failure told in one line, e.g. a port already in use. */
export class ServerStartError extends Error {
  override name = 'ServerStartError'
}

/**
 * Starts the mock as an HTTP server: the API under `/api`, the controls under `/__mock`.
 *
 * @example
 * const { url, close } = await startServer({ port: 0 })
 */
export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  const {
    port = 4010,
    host = '127.0.0.1',
    control = true,
    controlToken,
    allowedHosts,
    cors,
    headersTimeoutMs,
    requestTimeoutMs,
    keepAliveTimeoutMs,
    maxRequestsPerSocket,
    stateFile,
    ...mockOptions
  } = options
  const limits = resolveWith(limitsSchema, {
    headersTimeoutMs,
    requestTimeoutMs,
    keepAliveTimeoutMs,
    maxRequestsPerSocket,
  })
  const access = resolveWith(frontDoorOptionsSchema, { allowedHosts, cors })
  if (!control && controlToken !== undefined) {
    throw new TypeError('Invalid options: controlToken needs the control endpoints (control: true)')
  }
  // Until the server is bound, the strictest rule; then the one of the address actually bound
  // (`localhost` may be 127.0.0.1 or ::1), before any request can arrive.
  const frontDoor = { ...access, loopbackOnly: true }
  const listenerOptions = {
    control: { enabled: control, token: controlToken },
    maxRequestsPerSocket: limits.maxRequestsPerSocket,
    frontDoor,
  }
  const store = stateFile === undefined ? undefined : createStateFileStore(stateFile)
  const core = new MockCore(seedDataset, mockOptions, store)
  const answer = createAnswer(core, listenerOptions)
  await core.ready
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      // Node enforces both timeouts on this period (30 s by default), which would let a slow
      // client outstay a short timeout by that much.
      connectionsCheckingInterval: Math.min(
        1000,
        Math.max(10, Math.floor(limits.headersTimeoutMs / 4)),
      ),
      // Node would answer a request without Host with an empty 400: the front door answers it.
      requireHostHeader: false,
    },
    createRequestListener(answer, listenerOptions),
  )
  server.keepAliveTimeout = limits.keepAliveTimeoutMs
  server.on('connect', createConnectListener(answer))
  server.on('checkExpectation', answerExpectation)
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (error.code === 'ECONNRESET' || !socket.writable) socket.destroy()
    else socket.end(rawResponse(clientErrorResponse(error)))
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      store?.close()
      reject(describeListenError(error, host, port))
    })
    server.listen(port, host, resolve)
  })
  // Once listening, the server's own errors are failed accepts (EMFILE under a flood of
  // connections): Node keeps listening, and an unhandled 'error' event would stop the process.
  server.on('error', () => {})
  server.once('close', () => store?.close())
  const address = server.address() as AddressInfo
  frontDoor.loopbackOnly = isLoopbackAddress(address.address)
  const hostInUrl = address.family === 'IPv6' ? `[${address.address}]` : address.address
  return {
    url: `http://${hostInUrl}:${address.port}`,
    core,
    server,
    close: () =>
      new Promise((resolve) => {
        core.webhooks.cancel()
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

function describeListenError(error: NodeJS.ErrnoException, host: string, port: number) {
  switch (error.code) {
    case 'EADDRINUSE':
      return new ServerStartError(
        `port ${port} on ${host} is already in use: choose another with --port (0 picks a free one)`,
      )
    case 'EACCES':
      return new ServerStartError(`no permission to listen on ${host}:${port}`)
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
      return new ServerStartError(`cannot listen on ${host}: no such address on this machine`)
    default:
      return new ServerStartError(`cannot listen on ${host}:${port}: ${error.message}`)
  }
}
