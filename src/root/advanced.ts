import { seedDataset } from '../../fixtures/seed.ts'
import { type StateStore, MockCore as UnseededMockCore } from '../core/mock-core.ts'
import type { MockApiOptions } from '../options/mock-api-options.ts'

export { type ApiErrorCode, apiErrors, type WireResponse } from '../base/errors.ts'
export type { IncomingRequest, RequestBody, WireRequest } from '../base/wire.ts'
export { operationErrors } from '../core/faults.ts'
export type { StateStore } from '../core/mock-core.ts'
export type { Credentials, Dataset, Seed } from '../model/dataset.ts'
export * from '../model/records.ts'

/**
 * The mock without a transport, seeded with the fixtures' data as `createMockApi`'s is: for a
 * way in of your own over its `dispatch` (MSW handlers over it come from
 * `identify-api-mock/handlers`). `store` keeps its records elsewhere (a file, a database).
 *
 * @example
 * import { MockCore } from 'identify-api-mock/advanced'
 *
 * const core = new MockCore({ seed: 7 })
 * const answer = await core.dispatch({
 *   method: 'DELETE',
 *   target: '/api/v1/users/org-1/user-1',
 *   headers: new Headers({ authorization: 'Bearer test-key' }),
 *   body: null,
 * })
 */
export class MockCore extends UnseededMockCore {
  constructor(options: MockApiOptions = {}, store?: StateStore) {
    super(seedDataset, options, store)
  }
}
