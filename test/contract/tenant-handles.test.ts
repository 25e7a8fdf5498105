import { describe, it, vi } from 'vitest'
import { connectMockApi } from '../../src/client/connect-mock-api.ts'
import { createMockApi } from '../../src/root/index.ts'
import { startServer } from '../../src/server/server.ts'
import { noContainers, startContainer } from '../support/container.ts'
import { describeTenantHandles } from '../support/tenant-handle-suite.ts'

/**
 * One suite, three transports: the tenant handles of `createMockApi()` in-process, and of
 * `connectMockApi(url)` against the standalone server and against the container image.
 */

describeTenantHandles('in-process', async () => {
  const api = createMockApi()
  return { api, fetch: api.fetch, close: async () => {} }
})

describeTenantHandles('the server, through connectMockApi', async () => {
  const server = await startServer({ port: 0 })
  return { api: connectMockApi(server.url), fetch, close: server.close }
})

// Starting a container takes seconds, and a webhook step waits for its deliveries: more on a busy machine.
vi.setConfig({ hookTimeout: 60_000, testTimeout: 60_000 })

if (noContainers) {
  describe.skip(`tenant handles: the container image (skipped: ${noContainers})`, () => {
    it('runs the tenant handles suite against a container', () => {})
  })
} else {
  describeTenantHandles('the container image, through connectMockApi', async () => {
    const container = await startContainer()
    return {
      api: connectMockApi(container.url),
      fetch,
      close: async () => {
        await container.stop()
      },
      reachesLoopback: false,
    }
  })
}
