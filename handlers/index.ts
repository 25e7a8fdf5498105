import { type HttpHandler, http } from 'msw'
import { toFetchAnswer } from '../src/core/fetch-adapter.ts'
import type { MockCore } from '../src/core/mock-core.ts'
import { siteRows } from '../src/core/site.ts'

export interface HandlerOptions {
  /** Pins the handlers to one origin and path prefix, e.g. `https://api.example.test`. */
  baseUrl?: string
}

/**
 * The MSW request handlers of a mock: every path of the site its one transport-free `dispatch`
 * answers (everything under `/api/`, and the web view). By default they match any origin.
 *
 * @example
 * const server = setupServer(...createHandlers(core, { baseUrl: 'https://api.example.test' }))
 */
export function createHandlers(core: MockCore, options: HandlerOptions = {}): HttpHandler[] {
  const base = options.baseUrl ? options.baseUrl.replace(/\/+$/, '') : '*'
  const respond = async ({ request }: { request: Request }) => {
    const answer = toFetchAnswer(await core.dispatch(request), request.signal)
    // A hang its client gave up on: msw has answered the client with the abort already.
    return answer instanceof Promise ? answer.catch(() => Response.error()) : answer
  }
  return siteRows
    .filter(({ by }) => by === 'dispatch')
    .map(({ path, prefix }) => http.all(`${base}${path}${prefix ? '/*' : ''}`, respond))
}
