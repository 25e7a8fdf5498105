import type { HttpHandler } from 'msw'
import { createHandlers } from '../handlers/index.ts'
import { MockCore } from './mock-core.ts'
import type { MockApiOptions } from './options.ts'

/** A mock of the API: its MSW handlers, with the state and controls behind them. */
export interface MockApi extends MockCore {
  /** For `setupServer(...api.handlers)` or `setupWorker(...api.handlers)`. */
  readonly handlers: HttpHandler[]
}

/**
 * Creates an independent mock of the Identify and Delete User API: two instances never share
 * state.
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
 */
export function createMockApi(options: MockApiOptions = {}): MockApi {
  const core = new MockCore(options)
  const handlers = createHandlers(core, { baseUrl: core.options.baseUrl })
  return Object.assign(core, { handlers })
}
