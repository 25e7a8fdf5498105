import type { HttpHandler } from 'msw'
import { seedDataset } from '../../fixtures/seed.ts'
import { createHandlers } from '../../handlers/index.ts'
import { unsupportedNode } from '../base/node-support.ts'
import {
  controlMethods,
  type InProcessControls,
  inProcessInvoke,
  tenantHandle,
} from '../control/control-surfaces.ts'
import { MockCore } from '../core/mock-core.ts'
import { createMockFetch, type MockFetch } from '../core/mock-fetch.ts'
import type { MockApiOptions } from '../options/mock-api-options.ts'
import type { WebhookControls } from '../webhooks/delivery.ts'
import { coverageCollector } from './coverage-collector.ts'

/**
 * A tenant's `baseUrl` in-process when the mock has no `baseUrl`: its handlers and `api.fetch`
 * then answer every origin, and this one (a reserved `.test` name) reaches nothing else.
 */
const anyOriginBaseUrl = 'https://api.example.test'

/**
 * A mock of the API: its MSW handlers and its own `fetch`, every control of the control table as
 * a method (the same names and arguments as `connectMockApi`'s, not awaited), and what only a mock
 * in the same process has (`db`, `dispatch`, the webhooks' `settled` and `cancel`).
 */
export type MockApi = InProcessControls & {
  /** For `setupServer(...api.handlers)` or `setupWorker(...api.handlers)`. */
  readonly handlers: HttpHandler[]
  /**
   * A standard `fetch` straight to this mock, without msw: for clients that take a `fetch`
   * (openapi-fetch, @hey-api, ky, ofetch) and where msw cannot reach (undici, workers).
   */
  readonly fetch: MockFetch
  readonly webhooks: InProcessControls['webhooks'] & Pick<WebhookControls, 'settled' | 'cancel'>
} & Pick<MockCore, 'ready' | 'db' | 'credentials' | 'calls' | 'dispatch'>

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
  const baseUrl = (core.options.baseUrl ?? anyOriginBaseUrl).replace(/\/+$/, '')
  const invoke = inProcessInvoke(core, baseUrl)
  coverageCollector.add(() => core.coverage())
  const controls = controlMethods<InProcessControls>(invoke, (created) =>
    tenantHandle(invoke, { ...created, baseUrl }),
  )
  return {
    ...controls,
    webhooks: {
      ...controls.webhooks,
      settled: () => core.webhooks.settled(),
      cancel: () => core.webhooks.cancel(),
    },
    handlers: createHandlers(core, { baseUrl: core.options.baseUrl }),
    fetch: createMockFetch(core, core.options.baseUrl),
    ready: core.ready,
    get db() {
      return core.db
    },
    get credentials() {
      return core.credentials
    },
    calls: (operation, scope) => core.calls(operation, scope),
    dispatch: (input) => core.dispatch(input),
  }
}
