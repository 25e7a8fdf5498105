import { type HttpHandler, http } from 'msw'
import type { MockCore } from '../src/mock-core.ts'
import { webViewPath } from '../src/web-view/answer.ts'
import { maxBodyBytes, type WireRequest } from '../src/wire.ts'

export interface HandlerOptions {
  /** Pins the handlers to one origin and path prefix, e.g. `https://api.example.test`. */
  baseUrl?: string
}

/**
 * The MSW request handlers of a mock: everything under `/api/` (and the web view), answered by
 * the mock's one transport-free `dispatch`. By default they match any origin.
 *
 * @example
 * const server = setupServer(...createHandlers(core, { baseUrl: 'https://api.example.test' }))
 */
export function createHandlers(core: MockCore, options: HandlerOptions = {}): HttpHandler[] {
  const base = options.baseUrl ? options.baseUrl.replace(/\/+$/, '') : '*'
  const respond = async ({ request }: { request: Request }) =>
    toFetchResponse(await core.dispatch(await toWireRequest(request)))
  return [http.all(`${base}/api/*`, respond), http.all(`${base}${webViewPath}`, respond)]
}

async function toWireRequest(request: Request): Promise<WireRequest> {
  const url = new URL(request.url)
  const body = request.body ? new Uint8Array(await request.arrayBuffer()) : null
  return {
    method: request.method,
    target: url.pathname + url.search,
    headers: request.headers,
    body,
    bodyTooLarge: (body?.byteLength ?? 0) > maxBodyBytes,
  }
}

function toFetchResponse(wire: { status: number; headers: Record<string, string>; body: string }) {
  return new Response(wire.status === 204 ? null : wire.body, {
    status: wire.status,
    headers: wire.headers,
  })
}
