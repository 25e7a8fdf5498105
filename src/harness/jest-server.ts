/**
 * One standalone server for a whole jest run, shared by every worker, and a tenant of its own for
 * each test file: jest's `globalSetup` (this entry) starts the server, with the options of
 * `globals.identifyApiMockServer` and the `IDENTIFY_API_MOCK_*` variables `serve` reads, and
 * `globalTeardown` (`identify-api-mock/jest-server-teardown`) stops it; {@link useTenant} gives a
 * test file an organisation no other file touches.
 *
 * @example
 * // jest.config.js
 * export default {
 *   globalSetup: 'identify-api-mock/jest-server',
 *   globalTeardown: 'identify-api-mock/jest-server-teardown',
 *   globals: { identifyApiMockServer: { seed: 7, port: 4123 } },
 * }
 */
import type { OrganisationInput } from '../api/data-file.ts'
import { connectMockApi, type MockApiClient } from '../client/connect-mock-api.ts'
import type { Tenant } from '../control/control-surfaces.ts'
import {
  missingSetup,
  type SharedServer,
  type SharedServerOptions,
  sharedServerOptions,
  startSharedServer,
} from './shared-server.ts'
import { type FileHooks, tenantOfFile } from './tenant-of-file.ts'

export { shapeCases } from '../api/shape-cases.ts'
export { failureCases } from '../core/failure-cases.ts'
export type { SharedServerOptions } from './shared-server.ts'

/**
 * Where the server's URL reaches the workers: jest starts them after the global setup, with its
 * environment.
 */
const urlVariable = 'IDENTIFY_API_MOCK_SHARED_URL'

/** What the global setup and teardown share: they run in one process, the workers in others. */
const shared = globalThis as { identifyApiMockSharedServer?: SharedServer }

/**
 * jest's `globalSetup`: starts one server for the run (on a free loopback port unless the options
 * give one), with the options of `globals.identifyApiMockServer` and the `IDENTIFY_API_MOCK_*`
 * variables, and hands its URL to the workers.
 *
 * @example export default { globalSetup: 'identify-api-mock/jest-server' }
 */
export default async function globalSetup(
  _globalConfig: unknown,
  projectConfig: { globals?: { identifyApiMockServer?: SharedServerOptions } },
): Promise<void> {
  const server = await startSharedServer(projectConfig.globals?.identifyApiMockServer)
  shared.identifyApiMockSharedServer = server
  process.env[urlVariable] = server.url
}

/**
 * jest's `globalTeardown` (through `identify-api-mock/jest-server-teardown`): prints the run's
 * contract coverage (and writes and checks it as `coverage` asks), then stops the server; below a
 * threshold, throws the lines that say so (jest prints them last, and exits with 1).
 *
 * @example await stopSharedServer()
 */
export async function stopSharedServer(): Promise<void> {
  const server = shared.identifyApiMockSharedServer
  shared.identifyApiMockSharedServer = undefined
  const below = await server?.finish()
  // jest prints its global teardown's error after its summary, its stack only: the lines alone.
  if (below !== undefined) throw Object.assign(new Error(below), { stack: below })
}

/**
 * The shared server's controls (`connectMockApi` on the URL the global setup gave, with its
 * control token). Throws one line naming the setup to add when the run has no shared server.
 *
 * @example const api = mockApi()
 */
export function mockApi(): MockApiClient {
  const url = process.env[urlVariable]
  if (url === undefined) {
    throw missingSetup('jest', "globalSetup: 'identify-api-mock/jest-server'")
  }
  // jest gives a test file its config's `globals` as globals.
  const config = (globalThis as { identifyApiMockServer?: SharedServerOptions })
    .identifyApiMockServer
  return connectMockApi(url, { controlToken: sharedServerOptions(config).controlToken })
}

/**
 * A tenant of the shared server for the calling test file (or `describe` block): created before
 * its tests, reset after each test to what it was created with, removed after the last (jest's
 * global hooks). Throws one line naming the setup to add when the run has no shared server.
 *
 * @example
 * const tenant = useTenant({ users: [{ id: 'ada', registrationStatus: 'archived' }] })
 */
export function useTenant(input?: OrganisationInput): Tenant {
  // jest gives a test file its hooks as globals.
  return tenantOfFile(globalThis as unknown as FileHooks, mockApi(), input)
}
