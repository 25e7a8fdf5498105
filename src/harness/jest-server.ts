/**
 * One standalone server for a whole jest run, shared by every worker, and a tenant of its own for
 * each test file: jest's `globalSetup` (this entry) starts the server, with the options of
 * `globals.identifyApiMockServer`, and `globalTeardown` (`identify-api-mock/jest-server-teardown`)
 * stops it; {@link useTenant} gives a test file an organisation no other file touches.
 *
 * @example
 * // jest.config.js
 * export default {
 *   globalSetup: 'identify-api-mock/jest-server',
 *   globalTeardown: 'identify-api-mock/jest-server-teardown',
 *   globals: { identifyApiMockServer: { seed: 7 } },
 * }
 */
import type { OrganisationInput } from '../api/data-file.ts'
import { connectMockApi, type MockApiClient } from '../client/connect-mock-api.ts'
import type { Tenant } from '../control/control-surfaces.ts'
import { type RunningServer, type ServerOptions, startServer } from '../server/server.ts'
import { type FileHooks, tenantOfFile } from './tenant-of-file.ts'

/** The shared server's options, as `globals.identifyApiMockServer` gives them. */
type SharedServerOptions = Omit<ServerOptions, 'port'>

/** Where the server's URL reaches the workers: jest starts them after the global setup. */
const urlVariable = 'IDENTIFY_API_MOCK_SHARED_URL'

/** What the global setup and teardown share: they run in one process, the workers in others. */
const shared = globalThis as { identifyApiMockSharedServer?: RunningServer }

/**
 * jest's `globalSetup`: starts one server on a free loopback port for the run, with the options of
 * `globals.identifyApiMockServer`, and hands its URL to the workers.
 *
 * @example export default { globalSetup: 'identify-api-mock/jest-server' }
 */
export default async function globalSetup(
  _globalConfig: unknown,
  projectConfig: { globals?: { identifyApiMockServer?: SharedServerOptions } },
): Promise<void> {
  const options = projectConfig.globals?.identifyApiMockServer ?? {}
  const server = await startServer({ ...options, port: 0 })
  shared.identifyApiMockSharedServer = server
  process.env[urlVariable] = server.url
}

/**
 * jest's `globalTeardown` (through `identify-api-mock/jest-server-teardown`): stops the server.
 *
 * @example await stopSharedServer()
 */
export async function stopSharedServer(): Promise<void> {
  await shared.identifyApiMockSharedServer?.close()
  shared.identifyApiMockSharedServer = undefined
}

/**
 * The shared server's controls (`connectMockApi` on the URL the global setup gave).
 *
 * @example const api = mockApi()
 */
export function mockApi(): MockApiClient {
  const url = process.env[urlVariable]
  if (url === undefined) {
    throw new TypeError(
      "no shared server: add globalSetup: 'identify-api-mock/jest-server' to the jest config",
    )
  }
  const options = (globalThis as { identifyApiMockServer?: SharedServerOptions })
    .identifyApiMockServer
  return connectMockApi(url, { controlToken: options?.controlToken })
}

/**
 * A tenant of the shared server for the calling test file: created before its tests, reset after
 * each test, removed after the last (jest's global hooks).
 *
 * @example
 * const tenant = useTenant({ users: [{ id: 'ada', registrationStatus: 'archived' }] })
 */
export function useTenant(input?: OrganisationInput): Tenant {
  // jest gives a test file its hooks as globals.
  return tenantOfFile(globalThis as unknown as FileHooks, mockApi, input)
}
