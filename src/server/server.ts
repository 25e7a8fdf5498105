import { createServer, type Server } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { seedDataset } from '../../fixtures/seed.ts'
import { parseOptions } from '../base/errors.ts'
import { unsupportedNode } from '../base/node-support.ts'
import { MockCore } from '../core/mock-core.ts'
import { ConnectionPool } from './connection-pool.ts'
import {
  answerExpectation,
  clientErrorResponse,
  createAnswer,
  createConnectListener,
  createRequestListener,
  rawResponse,
} from './listener.ts'
import { memoryReleaser } from './memory-release.ts'
import {
  type ServerOptions,
  type SplitOptions,
  serverOptionsSchema,
  splitServerOptions,
} from './server-options.ts'
import { createStateFileStore } from './state-store.ts'
import { pinnedWebhookTransport } from './webhook-transport.ts'

export type { ServerOptions } from './server-options.ts'

/** A running standalone server. */
export interface RunningServer {
  /** `http://HOST:PORT` */
  url: string
  core: MockCore
  server: Server
  /** Stops the server, and cancels the webhook deliveries queued or waiting for a retry. */
  close(): Promise<void>
}

/**
 * The URL to call a server listening at `url` from this machine: an address of every interface
 * (`0.0.0.0`, `::`) is none to call, its loopback one is.
 *
 * @example callableUrl('http://0.0.0.0:4010') // 'http://127.0.0.1:4010'
 */
export function callableUrl(url: string): string {
  return url.replace('//0.0.0.0:', '//127.0.0.1:').replace('//[::]:', '//[::1]:')
}

/** A listen failure told in one line, e.g. a port already in use. */
export class ServerStartError extends Error {
  override name = 'ServerStartError'
}

/**
 * Starts the mock as an HTTP server: the API under `/api`, the controls under `/__mock`. On a Node
 * too old for it, it rejects, saying which Node it needs (as the bin and `createMockApi` do).
 *
 * @example
 * const { url, close } = await startServer({ port: 0 })
 */
export async function startServer(options_: ServerOptions = {}): Promise<RunningServer> {
  const refusal = unsupportedNode()
  if (refusal) throw new Error(`identify-api-mock ${refusal}`)
  const options = splitServerOptions(parseOptions(serverOptionsSchema, options_))
  const { listen, store: storeOptions } = options
  // One share for every mock-wide bound: a source's part of the connections and bodies too.
  const { sourceShare } = options.mock
  const connections = new ConnectionPool(options.listener.maxConnections, sourceShare)
  const store =
    storeOptions.stateFile === undefined
      ? undefined
      : createStateFileStore(storeOptions.stateFile, options.mock.data)
  const core = new MockCore(seedDataset, options.mock, store, pinnedWebhookTransport)
  const served = createAnswer(core, options)
  // Listening once the records are indexed: a large load's adoption into `@msw/data` goes on.
  await core.serving
  const release = memoryReleaser(() => core.stateBytes)
  const { timeouts } = options
  const server = createServer(
    {
      // Node enforces the timeouts on this period (30 s by default), which would let a slow
      // client outstay a short timeout by that much.
      connectionsCheckingInterval: Math.min(
        1000,
        Math.max(10, Math.floor(timeouts.headersTimeoutMs / 4)),
      ),
      // Node would answer a request without Host with an empty 400: the front door answers it.
      requireHostHeader: false,
    },
    createRequestListener(served, {
      ...options.listener,
      connections,
      sourceShare,
      answered: () => void release(),
    }),
  )
  for (const name of Object.keys(timeouts) as (keyof typeof timeouts)[]) {
    applyTimeout[name](server, timeouts[name])
  }
  server.on('connection', (socket: Socket) => connections.opened(socket))
  server.on('connect', createConnectListener(served.answer))
  server.on('checkExpectation', answerExpectation)
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (error.code === 'ECONNRESET' || !socket.writable) socket.destroy()
    else socket.end(rawResponse(clientErrorResponse(error)))
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      store?.close()
      reject(describeListenError(error, listen.host, listen.port))
    })
    server.listen(listen.port, listen.host, resolve)
  })
  // Once listening, the server's own errors are failed accepts (EMFILE under a flood of
  // connections): Node keeps listening, and an unhandled 'error' event would stop the process.
  server.on('error', () => {})
  server.once('close', () => store?.close())
  const address = server.address() as AddressInfo
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

/**
 * Each timeout option given to Node's server, which reads them at every check of its connections:
 * an option added to the group is a type error here until it is given.
 */
const applyTimeout: {
  [K in keyof SplitOptions['timeouts']]: (server: Server, ms: number) => void
} = {
  headersTimeoutMs: (server, ms) => {
    server.headersTimeout = ms
  },
  requestTimeoutMs: (server, ms) => {
    server.requestTimeout = ms
  },
  keepAliveTimeoutMs: (server, ms) => {
    server.keepAliveTimeout = ms
  },
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
