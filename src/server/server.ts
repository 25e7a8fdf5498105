import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { MockCore } from '../mock-core.ts'
import type { MockApiOptions } from '../options.ts'
import { createRequestListener } from './listener.ts'

export interface ServerOptions extends MockApiOptions {
  /** 0 picks a free port. */
  port?: number
  host?: string
}

/** A running standalone server. */
export interface RunningServer {
  /** `http://HOST:PORT` */
  url: string
  core: MockCore
  server: Server
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
  const { port = 4010, host = '127.0.0.1', ...mockOptions } = options
  const core = new MockCore(mockOptions)
  await core.ready
  const server = createServer(createRequestListener(core))
  server.on('clientError', (_error, socket) => {
    if (socket.writable) {
      const body = JSON.stringify({ code: 400, message: 'Bad request' })
      socket.end(
        `HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`,
      )
    } else socket.destroy()
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(describeListenError(error, host, port)),
    )
    server.listen(port, host, resolve)
  })
  const address = server.address() as AddressInfo
  const hostInUrl = address.family === 'IPv6' ? `[${address.address}]` : address.address
  return {
    url: `http://${hostInUrl}:${address.port}`,
    core,
    server,
    close: () =>
      new Promise((resolve) => {
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
