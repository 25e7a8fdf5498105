import { fromFetchRequest, toFetchAnswer } from './fetch-adapter.ts'
import type { MockCore } from './mock-core.ts'
import { plainRequestOf } from './plain-request.ts'

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
    const plain = plainRequestOf(input, init)
    const request = plain ? undefined : new Request(input, init)
    const url = plain?.href ?? (request as Request).url
    if (base !== undefined && !isUnder(url, base)) {
      // The origin only: the path and the query may carry a token.
      const { origin } = new URL(url)
      throw new TypeError(
        `fetch failed: a request to ${origin} is not under this mock's baseUrl ${base}`,
      )
    }
    const signal = plain ? init?.signal : request?.signal
    signal?.throwIfAborted()
    const wire = await core.answer(plain?.incoming ?? fromFetchRequest(request as Request))
    signal?.throwIfAborted()
    // No answer only for a client gone before its body was read, which a body at hand never is
    // (one whose stream fails is answered 400): a network error, as `fetch` would give.
    if (wire === undefined) throw new TypeError('fetch failed')
    // A failure's network error (a reset, an empty answer, a hang at its bound) is fetch's own.
    const response = await toFetchAnswer(wire, signal)
    if (response.type === 'error') throw new TypeError('fetch failed')
    return response
  }
}

function isUnder(url: string, base: string): boolean {
  return url.startsWith(base) && /^(?:[/?#]|$)/.test(url.slice(base.length))
}
