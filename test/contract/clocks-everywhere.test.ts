import { describe, it, vi } from 'vitest'
import type { ClockReading, ClockSetting } from '../../src/api/clock-schemas.ts'
import { connectMockApi } from '../../src/client/connect-mock-api.ts'
import type { JournalEntry } from '../../src/core/journal.ts'
import { createMockApi } from '../../src/root/index.ts'
import { startServer } from '../../src/server/server.ts'
import { type ClockTenant, describeClocks } from '../support/clock-suite.ts'
import { noContainers, startContainer } from '../support/container.ts'

/**
 * One suite of a tenant's time, four ways in: the tenant handles of `createMockApi()` and of
 * `connectMockApi(url)` against the server, the control endpoints called by hand over HTTP, and
 * the container image through the client.
 */

describeClocks('in-process', async () => {
  const api = createMockApi()
  return { tenant: () => api.organisations.create(), fetch: api.fetch, close: async () => {} }
})

describeClocks('the server, through connectMockApi', async () => {
  const server = await startServer({ port: 0 })
  const client = connectMockApi(server.url)
  return { tenant: () => client.organisations.create(), fetch, close: server.close }
})

describeClocks('the server, its control endpoints over HTTP', async () => {
  const server = await startServer({ port: 0 })
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${server.url}/__mock${path}`, {
      method,
      ...(body !== undefined && {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
    })
    if (response.status !== 200 && response.status !== 201) {
      throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`)
    }
    return (await response.json()) as T
  }
  const tenant = async (): Promise<ClockTenant> => {
    const { orgId, apiKey } = await call<{ orgId: string; apiKey: string }>(
      'POST',
      '/organisations',
      {},
    )
    const clock = `/organisations/${orgId}/clock`
    return {
      orgId,
      apiKey,
      baseUrl: server.url,
      clock: () => call<ClockReading>('GET', clock),
      setClock: (setting: ClockSetting) => call<ClockReading>('PUT', clock, setting),
      advanceClock: (ms: number) => call<ClockReading>('POST', `${clock}/advance`, { ms }),
      requests: () => call<JournalEntry[]>('GET', `/requests?orgId=${orgId}`),
    }
  }
  return { tenant, fetch, close: server.close }
})

// Starting a container takes seconds, more on a busy machine.
vi.setConfig({ hookTimeout: 60_000 })

if (noContainers) {
  describe.skip(`clocks: the container image (skipped: ${noContainers})`, () => {
    it("runs the clocks' suite against a container", () => {})
  })
} else {
  describeClocks('the container image, through connectMockApi', async () => {
    const container = await startContainer()
    const client = connectMockApi(container.url)
    return {
      tenant: () => client.organisations.create(),
      fetch,
      close: async () => {
        await container.stop()
      },
    }
  })
}
