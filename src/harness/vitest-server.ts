/**
 * One standalone server for a whole vitest run, shared by every worker, and a tenant of its own
 * for each test file: `globalSetup` starts the server (options from the config's `provide`), and
 * {@link useTenant} gives a test file an organisation that no other file's resets, faults or
 * calls touch.
 *
 * @example
 * // vitest.config.ts
 * export default defineConfig({
 *   test: {
 *     globalSetup: ['identify-api-mock/vitest-server'],
 *     provide: { identifyApiMockServer: { seed: 7 } },
 *   },
 * })
 *
 * // any test file
 * import { useTenant } from 'identify-api-mock/vitest-server'
 * const tenant = useTenant()
 */
import { afterAll, afterEach, beforeAll, inject } from 'vitest'
import type { OrganisationInput } from '../api/data-file.ts'
import { connectMockApi, type MockApiClient } from '../client/connect-mock-api.ts'
import type { Tenant } from '../control/control-surfaces.ts'
import { type ServerOptions, startServer } from '../server/server.ts'
import { tenantOfFile } from './tenant-of-file.ts'

declare module 'vitest' {
  interface ProvidedContext {
    /** The shared server's options (`startServer`'s, but its port: a free one is taken). */
    identifyApiMockServer?: Omit<ServerOptions, 'port'>
    /** The shared server's URL, provided by the global setup. */
    identifyApiMockUrl: string
  }
}

/** What the global setup uses of vitest's project (vitest 4 and 5 alike). */
interface SetupProject {
  provide(key: 'identifyApiMockUrl', value: string): void
  getProvidedContext(): { identifyApiMockServer?: Omit<ServerOptions, 'port'> }
}

/**
 * vitest's `globalSetup`: starts one server on a free loopback port for the run, with the options
 * of `provide.identifyApiMockServer`, provides its URL to the workers, and stops it at the end.
 *
 * @example
 * export default defineConfig({ test: { globalSetup: ['identify-api-mock/vitest-server'] } })
 */
export default async function setup(project: SetupProject): Promise<() => Promise<void>> {
  const options = project.getProvidedContext().identifyApiMockServer ?? {}
  const server = await startServer({ ...options, port: 0 })
  project.provide('identifyApiMockUrl', server.url)
  return () => server.close()
}

/**
 * The shared server's controls (`connectMockApi` on the URL the global setup provided).
 *
 * @example
 * const api = mockApi()
 * await expect(api).toHaveIdentified({ id: 'ada' }, { orgId: tenant.orgId })
 */
export function mockApi(): MockApiClient {
  const controlToken = inject('identifyApiMockServer')?.controlToken
  return connectMockApi(inject('identifyApiMockUrl'), { controlToken })
}

/**
 * A tenant of the shared server for the calling test file: created before its tests (with
 * `input`: an id, a name, users in exact states), reset after each test, removed after the last.
 * Its fields and controls are there from `beforeAll` on.
 *
 * @example
 * const tenant = useTenant({ users: [{ id: 'ada', registrationStatus: 'archived' }] })
 * it('takes its own fault', async () => {
 *   await tenant.failNext('identify', { status: 500 })
 *   // …call tenant.baseUrl with tenant.apiKey
 * })
 */
export function useTenant(input?: OrganisationInput): Tenant {
  return tenantOfFile({ beforeAll, afterEach, afterAll }, mockApi, input)
}
