import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'

/** One exchange as the proxy passes it on: what the client asked, what it will get back. */
export interface ProxiedExchange {
  method: string
  path: string
  status: number
  headers: Record<string, string>
  body: string
}

/** What a proxy does with one request: answer it itself, delay it, or pass it on. */
export interface ProxyRequest {
  method: string
  path: string
}

export interface DriftingProxy {
  url: string
  /** Changes each answer before it goes back; by default none. */
  drift: (exchange: ProxiedExchange) => ProxiedExchange
  /** Milliseconds to hold a request before passing it on; by default none. */
  delayMs: (request: ProxyRequest) => number
  /** Answers a request without passing it on, when it returns an exchange. */
  intercept: (request: ProxyRequest) => ProxiedExchange | undefined
  close(): Promise<void>
}

/** An answer to `request` with the API's error body, as the proxy gives it instead of the target's. */
export function errorAnswer(
  request: ProxyRequest,
  status: number,
  message: string,
): ProxiedExchange {
  return {
    ...request,
    status,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code: status, message }),
  }
}

/** A service that answers a missing or unknown key with the documented 403 instead of 401. */
export const forbidInsteadOfUnauthorized = (exchange: ProxiedExchange): ProxiedExchange =>
  exchange.status === 401 ? errorAnswer(exchange, 403, 'Forbidden') : exchange

/** Headers that describe the bytes on the wire: the proxy sends the body again, as it is now. */
const hopHeaders = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive'])

/** The request's body as text (the API's bodies are JSON), `undefined` when there is none. */
async function readBody(request: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  return chunks.length > 0 ? Buffer.concat(chunks).toString('utf8') : undefined
}

/**
 * A small HTTP proxy on a free port between `verify` and a target, that can change one thing of
 * the target's answers at a time, so that a test plays a deployment that drifted from the mock.
 */
export async function startDriftingProxy(target: string): Promise<DriftingProxy> {
  const proxy: Omit<DriftingProxy, 'url' | 'close'> = {
    drift: (exchange) => exchange,
    delayMs: () => 0,
    intercept: () => undefined,
  }
  const server = createServer(async (req, res) => {
    const request = { method: req.method ?? 'GET', path: req.url ?? '/' }
    const body = await readBody(req)
    const delay = proxy.delayMs(request)
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay))
    if (res.destroyed) return
    let exchange = proxy.intercept(request)
    if (!exchange) {
      const headers = new Headers()
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === 'string' && name !== 'host') headers.set(name, value)
      }
      const answer = await fetch(target + request.path, { method: request.method, headers, body })
      exchange = {
        ...request,
        status: answer.status,
        headers: Object.fromEntries([...answer.headers].filter(([name]) => !hopHeaders.has(name))),
        body: await answer.text(),
      }
    }
    const changed = proxy.drift(exchange)
    res.writeHead(changed.status, changed.headers).end(changed.body)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return Object.assign(proxy, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  })
}
