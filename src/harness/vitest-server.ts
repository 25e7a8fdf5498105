/**
 * One standalone server for a whole vitest run, shared by every worker, and a tenant of its own
 * for each test file: `globalSetup` starts the server (options from the config's `provide`, and
 * the `IDENTIFY_API_MOCK_*` variables `serve` reads), and {@link useTenant} gives a test file an
 * organisation that no other file's resets, faults or calls touch.
 *
 * @example
 * // vitest.config.ts
 * export default defineConfig({
 *   test: {
 *     globalSetup: ['identify-api-mock/vitest-server'],
 *     provide: { identifyApiMockServer: { seed: 7, port: 4123 } },
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
import {
  missingSetup,
  SetupError,
  type SharedServerOptions,
  sharedServerOptions,
  startSharedServer,
} from './shared-server.ts'
import { tenantOfFile } from './tenant-of-file.ts'

export { shapeCases } from '../api/shape-cases.ts'
export { failureCases } from '../core/failure-cases.ts'
export type { SharedServerOptions } from './shared-server.ts'

declare module 'vitest' {
  interface ProvidedContext {
    /**
     * The shared server's options, given in the config (`test.provide`): `startServer`'s, the
     * port included (a free one when not given), the data file as an object or a path. The
     * `IDENTIFY_API_MOCK_*` variables of `serve` win over them.
     */
    identifyApiMockServer?: SharedServerOptions
    /**
     * The shared server's URL, provided by the global setup to every test file:
     * `inject('identifyApiMockUrl')`.
     */
    identifyApiMockUrl: string
  }
}

/** What the global setup uses of vitest's project (vitest 4 and 5 alike). */
interface SetupProject {
  provide(key: 'identifyApiMockUrl', value: string): void
  getProvidedContext(): { identifyApiMockServer?: SharedServerOptions }
}

/** The setup to add, as the missing-setup line names it. */
const setupLine = "globalSetup: ['identify-api-mock/vitest-server']"

/**
 * vitest's `globalSetup`: starts one server for the run (on a free loopback port unless the
 * options give one), with the options of `provide.identifyApiMockServer` and the
 * `IDENTIFY_API_MOCK_*` variables, provides its URL to the workers as `identifyApiMockUrl`, and
 * at the end prints the run's contract coverage (and writes and checks it as `coverage` asks),
 * then stops it. A setting it cannot use (a variable's bad value, a threshold of no group) stops
 * the run before any test, in one line on stderr and exit code 1; a group below its threshold is
 * said in the run's last lines, with exit code 1.
 *
 * @example
 * export default defineConfig({ test: { globalSetup: ['identify-api-mock/vitest-server'] } })
 */
export default async function setup(project: SetupProject): Promise<() => Promise<void>> {
  let server: Awaited<ReturnType<typeof startSharedServer>>
  try {
    server = await startSharedServer(project.getProvidedContext().identifyApiMockServer)
  } catch (error) {
    if (!(error instanceof SetupError)) throw error
    // vitest prints an error thrown here in a box with its stack, then runs nothing: the line
    // alone says it all (docs/decisions/setup-errors-in-one-line.md).
    process.stderr.write(`${error.message}\n`)
    process.exit(1)
  }
  project.provide('identifyApiMockUrl', server.url)
  return async () => {
    const below = await server.finish()
    if (below === undefined) return
    // Written, not thrown: vitest would print it as an "error during close" with a stack. The
    // teardown runs after vitest's summary, so these are the run's last lines.
    process.stderr.write(`${below}\n`)
    process.exitCode = 1
  }
}

/**
 * The shared server's controls (`connectMockApi` on the URL the global setup provided, with its
 * control token). Throws one line naming the setup to add when the run has no shared server.
 *
 * @example
 * const api = mockApi()
 * await expect(api).toHaveIdentified({ id: 'ada' }, { orgId: tenant.orgId })
 */
export function mockApi(): MockApiClient {
  const url = inject('identifyApiMockUrl') as string | undefined
  if (url === undefined) throw missingSetup('vitest', setupLine)
  const { controlToken } = sharedServerOptions(inject('identifyApiMockServer'))
  return connectMockApi(url, { controlToken })
}

/**
 * A tenant of the shared server for the calling test file (or `describe` block): created before
 * its tests (with `input`: an id, a name, users in exact states, its answer shapes), reset after
 * each test to what it was created with, removed after the last. Its fields and controls are
 * there from `beforeAll` on. Throws one line naming the setup to add when the run has no shared
 * server.
 *
 * @example
 * const tenant = useTenant({ users: [{ id: 'ada', registrationStatus: 'archived' }] })
 * it('takes its own fault', async () => {
 *   await tenant.failNext('identify', { status: 500 })
 *   // …call tenant.baseUrl with tenant.apiKey
 * })
 */
export function useTenant(input?: OrganisationInput): Tenant {
  return tenantOfFile({ beforeAll, afterEach, afterAll }, mockApi(), input)
}
