import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectMockApi, type MockApiClient } from '../../src/client/connect-mock-api.ts'
import { createMockApi, type MockApi, type Tenant } from '../../src/root/index.ts'
import { type RunningServer, startServer } from '../../src/server/server.ts'

/**
 * A tenant's failures touch only the calls its key owns: two tenants arming their own cases and
 * calling in parallel never meet each other's, and a key of one naming the other's organisation
 * meets its own tenant's failure (the call is its key's).
 */

let server: RunningServer
beforeAll(async () => {
  server = await startServer({ port: 0 })
})
afterAll(() => server.close())

const inProcess = createMockApi({ baseUrl: 'https://tenants.example.test' })

const ways: {
  name: string
  way: () => { controls: MockApi | MockApiClient; send: typeof fetch; base: string }
}[] = [
  {
    name: 'the server',
    way: () => ({ controls: connectMockApi(server.url), send: fetch, base: server.url }),
  },
  {
    name: 'api.fetch',
    way: () => ({
      controls: inProcess,
      send: inProcess.fetch,
      base: 'https://tenants.example.test',
    }),
  },
]

const users = Array.from({ length: 8 }, (_, i) => ({
  id: `u${i}`,
  registrationStatus: 'registered' as const,
}))

describe.each(ways)('two tenants in parallel, through $name', ({ way }) => {
  it('each meets its own failures only, its key deciding whose a call is', async () => {
    const { controls, send, base } = way()
    const [a, b] = (await Promise.all([
      controls.organisations.create({ users }),
      controls.organisations.create({ users }),
    ])) as [Tenant, Tenant]
    await a.failNext('delete-reset-applied', { count: users.length + 1 })
    await b.failNext('delete-gateway-503', { count: users.length })

    const deleteAs = (tenant: Tenant, orgId: string, id: string) =>
      send(`${base}/api/v1/users/${orgId}/${id}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${tenant.apiKey}` },
      }).then(
        async (response) => `${response.status} ${response.headers.get('content-type')}`,
        (error: Error) => error.name,
      )
    const [ofA, ofB, crossing] = await Promise.all([
      Promise.all(users.map(({ id }) => deleteAs(a, a.orgId, id))),
      Promise.all(users.map(({ id }) => deleteAs(b, b.orgId, id))),
      // A's key naming B's organisation: A's call, A's failure (and a 403 of its own).
      deleteAs(a, b.orgId, 'u0'),
    ])
    expect(new Set(ofA)).toEqual(new Set(['TypeError']))
    expect(new Set(ofB)).toEqual(new Set(['503 text/html; charset=utf-8']))
    expect(crossing).toBe('TypeError')

    const state = await controls.state()
    const idsOf = (orgId: string) => state.users.filter((u) => u.orgId === orgId).map((u) => u.id)
    // A's deletes were applied; B's gateway failures, and A's call on B, changed nothing.
    expect(idsOf(a.orgId)).toEqual([])
    expect(idsOf(b.orgId).sort()).toEqual(users.map((u) => u.id).sort())

    const callsOfA = await a.calls('delete')
    expect(callsOfA).toHaveLength(users.length + 1)
    for (const call of callsOfA) expect(call.failure).toEqual({ kind: 'reset', applied: true })
    expect(callsOfA.filter((call) => call.request.orgId === b.orgId)).toEqual([
      expect.objectContaining({ status: 403 }),
    ])
    const callsOfB = await b.calls('delete')
    expect(callsOfB).toHaveLength(users.length)
    for (const call of callsOfB) {
      expect(call).toMatchObject({
        status: 503,
        failure: { kind: 'gateway', status: 503, applied: false },
      })
    }
    const left = (await controls.queuedFaults()).filter(
      (fault) => fault.orgId === a.orgId || fault.orgId === b.orgId,
    )
    expect(left).toEqual([])
  })
})
