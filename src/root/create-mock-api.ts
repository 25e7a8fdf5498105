import type { HttpHandler } from 'msw'
import { seedDataset } from '../../fixtures/seed.ts'
import { createHandlers } from '../../handlers/index.ts'
import { unsupportedNode } from '../base/node-support.ts'
import { MockCore } from '../core/mock-core.ts'
import { createMockFetch, type MockFetch } from '../core/mock-fetch.ts'
import type { MockApiOptions } from '../options/mock-api-options.ts'

/**
 * A mock of the API: its MSW handlers and its own `fetch`, with the state and controls behind
 * them. Only what a user calls: the core's other members (its resolved options, `transact` over
 * the rules' context) are the server's and the inspector's, and not part of this type.
 */
export interface MockApi
  extends Pick<
    MockCore,
    | 'ready'
    | 'webhooks'
    | 'events'
    | 'organisations'
    | 'shapes'
    | 'credentials'
    | 'db'
    | 'dispatch'
    | 'reset'
    | 'failNext'
    | 'queuedFaults'
    | 'state'
    | 'requests'
    | 'calls'
    | 'redeemToken'
  > {
  /** For `setupServer(...api.handlers)` or `setupWorker(...api.handlers)`. */
  readonly handlers: HttpHandler[]
  /**
   * A standard `fetch` straight to this mock, without msw: for clients that take a `fetch`
   * (openapi-fetch, @hey-api, ky, ofetch) and where msw cannot reach (undici, workers).
   */
  readonly fetch: MockFetch
}

/**
 * Creates an independent mock of the Identify and Delete User API: two instances never share
 * state. On a Node too old for it, it throws, saying which Node it needs.
 *
 * @example
 * import { setupServer } from 'msw/node'
 * import { createMockApi } from 'identify-api-mock'
 *
 * const api = createMockApi({ organisations: [{ orgId: 'acme', apiKeys: ['test-key'] }] })
 * const server = setupServer(...api.handlers)
 * beforeAll(() => server.listen())
 * afterEach(() => api.reset())
 * afterAll(() => server.close())
 *
 * // Or without msw, for a client that takes a fetch:
 * const response = await api.fetch('https://api.example.test/api/v1/users/org-1/user-1', {
 *   method: 'DELETE',
 *   headers: { authorization: 'Bearer test-key' },
 * })
 */
export function createMockApi(options: MockApiOptions = {}): MockApi {
  // Before msw fails deep inside a request for what the older Node lacks.
  const refusal = unsupportedNode()
  if (refusal) throw new Error(`identify-api-mock ${refusal}`)
  const core = new MockCore(seedDataset, options)
  const handlers = createHandlers(core, { baseUrl: core.options.baseUrl })
  const fetch = createMockFetch(core, core.options.baseUrl)
  return Object.assign(core, { handlers, fetch })
}
