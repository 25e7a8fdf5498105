import { type HttpHandler, http } from 'msw'
import { toFetchResponse } from '../src/fetch-adapter.ts'
import type { MockCore } from '../src/mock-core.ts'
import { webViewPath } from '../src/web-view/answer.ts'

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
    toFetchResponse(await core.dispatch(request))
  return [http.all(`${base}/api/*`, respond), http.all(`${base}${webViewPath}`, respond)]
}
