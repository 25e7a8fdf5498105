import { toFetchResponse } from './fetch-adapter.ts'
import type { MockCore } from './mock-core.ts'

/** A standard `fetch` whose requests go straight to one mock's `dispatch`. */
export type MockFetch = (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>

/**
 * A `fetch` bound to `core`: every request goes straight to its `dispatch`, with no interception
 * and no socket, so it works wherever `Request` and `Response` exist (Node, browsers, workers).
 * It answers any origin unless `baseUrl` pins one; a request to another origin then rejects with
 * a `TypeError`, as a network error does. An aborted `signal` rejects with its reason.
 *
 * @example
 * const client = createClient<paths>({ baseUrl: 'https://api.example.test', fetch: api.fetch })
 */
export function createMockFetch(core: MockCore, baseUrl?: string): MockFetch {
  const base = baseUrl?.replace(/\/+$/, '')
  return async (input, init) => {
    const request = new Request(input, init)
    if (base !== undefined && !isUnder(request.url, base)) {
      // The origin only: the path and the query may carry a token.
      const { origin } = new URL(request.url)
      throw new TypeError(
        `fetch failed: a request to ${origin} is not under this mock's baseUrl ${base}`,
      )
    }
    request.signal.throwIfAborted()
    const response = await core.dispatch(request)
    request.signal.throwIfAborted()
    return toFetchResponse(response)
  }
}

function isUnder(url: string, base: string): boolean {
  return url.startsWith(base) && /^(?:[/?#]|$)/.test(url.slice(base.length))
}
