import type { OrganisationInput } from '../api/data-file.ts'
import type { MockApiClient } from '../client/connect-mock-api.ts'
import type { Tenant } from '../control/control-surfaces.ts'

/** A test runner's file-level hooks, by the names vitest and jest both give them. */
export interface FileHooks {
  beforeAll(fn: () => Promise<unknown>): void
  afterEach(fn: () => Promise<unknown>): void
  afterAll(fn: () => Promise<unknown>): void
}

/**
 * The calling test file's tenant of a shared server, through the runner's `hooks`: created before
 * its tests (on the server `api` reaches), reset after each test to what it was created with,
 * removed after the last. Its fields and controls are there from `beforeAll` on.
 *
 * @example const tenant = tenantOfFile({ beforeAll, afterEach, afterAll }, mockApi(), { users: 2 })
 */
export function tenantOfFile(
  hooks: FileHooks,
  api: MockApiClient,
  input?: OrganisationInput,
): Tenant {
  const handle = {} as Tenant
  hooks.beforeAll(async () => {
    Object.assign(handle, await api.organisations.create(input))
  })
  hooks.afterEach(() => handle.reset())
  hooks.afterAll(() => handle.remove())
  return handle
}
