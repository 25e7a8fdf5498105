import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMockApi, type MockApi } from '../../src/root/index.ts'
import { type RunningServer, startServer } from '../../src/server/server.ts'
import { runTenantWorker, type SharedMock } from '../support/tenant-worker.ts'

const run = promisify(execFile)
const workerPath = fileURLToPath(new URL('../support/tenant-worker.ts', import.meta.url))
const workers = 8
const rounds = 20

describe('parallel test workers, each with its own tenant', () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer({ port: 0 })
  })
  afterAll(() => server.close())

  it('never take another worker’s fault, lose users to its reset, or see its calls: 8 processes over HTTP', async () => {
    const results = await Promise.all(
      Array.from({ length: workers }, () =>
        run(process.execPath, [workerPath, server.url, String(rounds)]),
      ),
    )
    const surprises = results.map(({ stdout }) => JSON.parse(stdout))
    expect(surprises).toEqual(Array.from({ length: workers }, () => []))
    const tenants = server.core.credentials.filter((c) => c.orgId.startsWith('tenant-'))
    expect(tenants).toHaveLength(workers)
    // Each worker's calls were journaled under its organisation, and its last reset cleared them.
    expect(server.core.requests()).toEqual([])
  }, 60_000)
})

describe('concurrent tests on one createMockApi, each with its own tenant', () => {
  it('never take another test’s fault, lose users to its reset, or see its calls', async () => {
    const api = createMockApi()
    const results = await Promise.all(
      Array.from({ length: workers }, () => runTenantWorker(inProcess(api), rounds)),
    )
    expect(results).toEqual(Array.from({ length: workers }, () => []))
  })
})

/** The shared mock `api`, in-process: its controls and its own `fetch`. */
function inProcess(api: MockApi): SharedMock {
  return {
    createTenant: () =>
      api.organisations.create({ users: [{ id: 'base', registrationStatus: 'archived' }] }),
    failNextIdentify: async (orgId) => api.failNext('identify', { status: 500, orgId }),
    identify: async (apiKey, orgId, id) => {
      const response = await api.fetch('https://api.test/api/v1/users/identify', {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ id, orgId }),
      })
      return response.status
    },
    reset: (orgId) => api.reset({ orgId }),
    userIds: async (orgId) =>
      api.db.users
        .findMany((q) => q.where({ orgId }))
        .map((u) => u.id)
        .sort(),
    calls: async (orgId) =>
      api.calls('identify', { orgId }).map(({ request, status }) => {
        const { orgId: named, id } = request as { orgId: unknown; id: unknown }
        return { orgId: named, id, status }
      }),
  }
}
