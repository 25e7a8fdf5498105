import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectMockApi } from '../../src/client/connect-mock-api.ts'
import { createMockApi, type MockApi, type Tenant } from '../../src/root/index.ts'
import { type RunningServer, startServer } from '../../src/server/server.ts'

/**
 * Chaos at a rate: each call of a scope that no queued fault answers draws from a seeded stream,
 * a share `rate` of them meeting a failure case, reproducibly; an organisation's own chaos
 * replaces the mock's for its calls and touches no other's; it ends after `calls` or `forMs`, and
 * with a reset of its scope.
 */

const base = 'https://chaos.example.test'

/** A delete of a user nobody has, with `tenant`'s key: what the chaos draws for, and cheap. */
const deleteOf = (api: MockApi, tenant: Tenant, id = 'nobody') =>
  api.dispatch(
    new Request(`${base}/api/v1/users/${tenant.orgId}/${id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${tenant.apiKey}` },
    }),
  )

const identifyOf = (api: MockApi, tenant: Tenant, id: string) =>
  api.fetch(`${base}/api/v1/users/identify`, {
    method: 'POST',
    headers: { authorization: `Bearer ${tenant.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id, orgId: tenant.orgId }),
  })

/** The failures the journal holds of `tenant`'s calls, each with the call's place. */
const failuresOf = async (tenant: Tenant) =>
  (await tenant.requests()).flatMap((entry, at) =>
    entry.failure ? [{ at, path: entry.path, failure: entry.failure }] : [],
  )

const mockOf = (options: Parameters<typeof createMockApi>[0] = {}) =>
  createMockApi({ baseUrl: base, seededOrganisations: 0, journalSize: 10_000, ...options })

describe('chaos at a rate', () => {
  it.each([1, 2, 3])(
    'fails 450 to 550 of 10,000 calls at rate 0.05 (seed %i), each a case of the operation',
    async (seed) => {
      const api = mockOf()
      const tenant = await api.organisations.create()
      // Every delete case: those the transport enacts (a hang, a slow body) travel unsent here.
      await tenant.setChaos({ rate: 0.05, seed })
      for (let i = 0; i < 10_000; i += 1) await deleteOf(api, tenant)
      const failures = await failuresOf(tenant)
      const reading = await tenant.chaos()
      expect(reading).toMatchObject({ rate: 0.05, seed, drawn: 10_000 })
      expect(reading?.failed).toBeGreaterThanOrEqual(450)
      expect(reading?.failed).toBeLessThanOrEqual(550)
      expect(failures).toHaveLength(reading?.failed ?? -1)
      const cases = new Set(failures.map(({ failure }) => failure.case))
      const deleteCases = api.failures.cases().filter((c) => c.operation === 'delete')
      expect([...cases].every((name) => deleteCases.some((c) => c.name === name))).toBe(true)
      // Uniform over 20 cases: about 25 each, none missing.
      expect(cases.size).toBe(deleteCases.length)
      expect(failures.every(({ failure }) => failure.chaos === true)).toBe(true)
      // Coverage counts each case met.
      const coverage = await tenant.coverage()
      const met = coverage.items.filter((item) => item.id.startsWith('failure.delete-'))
      expect(met.reduce((sum, item) => sum + item.count, 0)).toBe(failures.length)
    },
    120_000,
  )

  it('gives the same failures to the same seed and calls, and others to another seed', async () => {
    const run = async (seed: number) => {
      const api = mockOf()
      const tenant = await api.organisations.create({
        orgId: 'replayed',
        users: [{ id: 'ada', registrationStatus: 'registered' }],
      })
      await tenant.setChaos({
        rate: 0.3,
        seed,
        cases: ['identify-status-500', 'identify-gateway-503', 'delete-status-403'],
      })
      for (let i = 0; i < 200; i += 1) {
        if (i % 3 === 0) await deleteOf(api, tenant, `u${i}`)
        else await (await identifyOf(api, tenant, `u${i % 7}`)).text()
      }
      return failuresOf(tenant)
    }
    const first = await run(42)
    expect(first.length).toBeGreaterThan(30)
    expect(new Set(first.map(({ failure }) => failure.case)).size).toBe(3)
    expect(await run(42)).toEqual(first)
    expect(await run(43)).not.toEqual(first)
  }, 60_000)

  it('starts the option’s chaos again from its seed on a reset of the mock, the same failures', async () => {
    const api = mockOf({
      seededOrganisations: 1,
      usersPerOrganisation: 0,
      chaos: { rate: 0.5, cases: ['delete-gateway-502'] },
    })
    const [seeded] = api.credentials
    const tenant = { orgId: seeded?.orgId, apiKey: seeded?.apiKeys[0] } as Tenant
    const statuses = async () => {
      const got: number[] = []
      for (let i = 0; i < 40; i += 1) got.push((await deleteOf(api, tenant)).status)
      return got
    }
    const { seed } = (await api.chaos()) ?? { seed: -1 }
    const first = await statuses()
    expect(first).toContain(502)
    expect(first).toContain(404)
    await api.setChaos({ rate: 1, cases: ['delete-status-500'] })
    await api.reset()
    expect(await api.chaos()).toEqual({
      rate: 0.5,
      cases: ['delete-gateway-502'],
      seed,
      drawn: 0,
      failed: 0,
    })
    expect(await statuses()).toEqual(first)
  })

  it("never touches another tenant's calls, and an organisation's own replaces the mock's", async () => {
    const api = mockOf()
    const [a, b, c] = await Promise.all([
      api.organisations.create(),
      api.organisations.create(),
      api.organisations.create(),
    ])
    await a.setChaos({ rate: 1, cases: ['delete-gateway-502'], seed: 1 })
    const statusesOf = (tenant: Tenant) =>
      Promise.all(Array.from({ length: 50 }, async () => (await deleteOf(api, tenant)).status))
    expect(new Set(await statusesOf(b))).toEqual(new Set([404]))
    expect(new Set(await statusesOf(a))).toEqual(new Set([502]))
    expect(await b.chaos()).toBeNull()
    expect(await a.chaos()).toMatchObject({ drawn: 50, failed: 50 })

    // The mock's reaches every organisation without its own; a's own replaces it.
    await api.setChaos({ rate: 1, cases: ['delete-status-500'], seed: 2 })
    await c.setChaos({ rate: 0, seed: 3 })
    expect(new Set(await statusesOf(a))).toEqual(new Set([502]))
    expect(new Set(await statusesOf(b))).toEqual(new Set([500]))
    expect(new Set(await statusesOf(c))).toEqual(new Set([404]))
    expect(await api.chaos()).toMatchObject({ drawn: 50, failed: 50 })
    expect(await c.chaos()).toMatchObject({ drawn: 50, failed: 0 })
    // Its own ended, an organisation meets the mock's again.
    await a.clearChaos()
    expect(new Set(await statusesOf(a))).toEqual(new Set([500]))
  })

  it('lets a queued fault go first: no draw is made for the call it answers', async () => {
    const api = mockOf()
    const tenant = await api.organisations.create()
    await tenant.setChaos({ rate: 1, cases: ['delete-gateway-502'], seed: 5 })
    await tenant.failNext('delete-status-403')
    expect((await deleteOf(api, tenant)).status).toBe(403)
    expect(await tenant.chaos()).toMatchObject({ drawn: 0, failed: 0 })
    expect((await deleteOf(api, tenant)).status).toBe(502)
    expect(await tenant.chaos()).toMatchObject({ drawn: 1, failed: 1 })
    const [queued, drawn] = await failuresOf(tenant)
    expect(queued?.failure).toEqual({ kind: 'status', status: 403, applied: false })
    expect(drawn?.failure).toEqual({
      kind: 'gateway',
      status: 502,
      applied: false,
      case: 'delete-gateway-502',
      chaos: true,
    })
  })

  it('draws only for the operations of the cases it names', async () => {
    const api = mockOf()
    const tenant = await api.organisations.create()
    await tenant.setChaos({ rate: 1, cases: ['identify-status-500'], seed: 5 })
    expect((await deleteOf(api, tenant)).status).toBe(404)
    expect((await identifyOf(api, tenant, 'ada')).status).toBe(500)
    expect(await tenant.chaos()).toMatchObject({ drawn: 1, failed: 1 })
  })

  it('ends after `calls` calls', async () => {
    const api = mockOf()
    const tenant = await api.organisations.create()
    await tenant.setChaos({ rate: 1, cases: ['delete-status-500'], seed: 5, calls: 3 })
    const statuses = []
    for (let i = 0; i < 5; i += 1) statuses.push((await deleteOf(api, tenant)).status)
    expect(statuses).toEqual([500, 500, 500, 404, 404])
    expect(await tenant.chaos()).toBeNull()
  })

  it('ends after `forMs` of real time', async () => {
    let now = Date.parse('2030-01-01T00:00:00Z')
    const api = mockOf({ now: () => new Date(now) })
    const tenant = await api.organisations.create()
    await tenant.setChaos({ rate: 1, cases: ['delete-status-500'], seed: 5, forMs: 1000 })
    expect((await deleteOf(api, tenant)).status).toBe(500)
    now += 999
    expect((await deleteOf(api, tenant)).status).toBe(500)
    expect(await tenant.chaos()).toMatchObject({ forMs: 1000, drawn: 2 })
    now += 1
    expect((await deleteOf(api, tenant)).status).toBe(404)
    expect(await tenant.chaos()).toBeNull()
  })

  it('ends with a reset of its scope: an organisation’s with its reset, every one with the mock’s', async () => {
    const api = mockOf()
    const [a, b] = await Promise.all([api.organisations.create(), api.organisations.create()])
    await a.setChaos({ rate: 1, seed: 1 })
    await b.setChaos({ rate: 1, seed: 1 })
    await api.setChaos({ rate: 1, seed: 1 })
    await a.reset()
    expect(await a.chaos()).toBeNull()
    expect(await b.chaos()).not.toBeNull()
    expect(await api.chaos()).not.toBeNull()
    await api.reset()
    const c = await api.organisations.create()
    expect(await api.chaos()).toBeNull()
    expect(await c.chaos()).toBeNull()
    expect((await deleteOf(api, c)).status).toBe(404)
  })

  it('leaves an applied failure’s effect in the state, and none of one not applied', async () => {
    const api = mockOf()
    const tenant = await api.organisations.create()
    await tenant.setChaos({ rate: 1, cases: ['identify-status-500-applied'], seed: 1, calls: 1 })
    expect((await identifyOf(api, tenant, 'ada')).status).toBe(500)
    expect((await tenant.getUser('ada')).id).toBe('ada')
    await tenant.setChaos({ rate: 1, cases: ['identify-status-500'], seed: 1 })
    expect((await identifyOf(api, tenant, 'grace')).status).toBe(500)
    await expect(tenant.getUser('grace')).rejects.toMatchObject({ status: 404 })
  })
})

describe('chaos settings refused', () => {
  const refusals: [string, unknown, RegExp][] = [
    [
      'a rate above 1',
      { rate: 1.5 },
      /^Invalid request parameters: rate: expected a rate from 0 to 1$/,
    ],
    ['a rate below 0', { rate: -0.1 }, /rate: expected a rate from 0 to 1/],
    ['no rate', { seed: 1 }, /rate: expected a rate from 0 to 1/],
    ['an unknown case', { rate: 0.1, cases: ['delete-nope'] }, /cases\[0\]: .*"delete-nope"/],
    ['a seed not whole', { rate: 0.1, seed: 1.5 }, /seed: expected a whole number/],
    ['another key', { rate: 0.1, operation: 'delete' }, /Unrecognized key: "operation"/],
    ['calls of 0', { rate: 0.1, calls: 0 }, /calls: expected a whole number of 1 or more/],
  ]

  it.each(refusals)('in-process, a TypeError for %s', async (_name, setting, message) => {
    const api = mockOf()
    const tenant = await api.organisations.create()
    const set = (run: () => unknown) =>
      expect(Promise.resolve().then(run)).rejects.toSatisfy(
        (error: Error) => error instanceof TypeError && message.test(error.message),
      )
    await set(() => api.setChaos(setting as never))
    await set(() => tenant.setChaos(setting as never))
    expect(await tenant.chaos()).toBeNull()
  })

  it('refuses the option with a rate out of range or an unknown case, a TypeError naming it', () => {
    expect(() => createMockApi({ chaos: { rate: 0.1, cases: ['delete-nope'] } })).toThrow(
      /^Invalid options: chaos\.cases\[0\]: .*"delete-nope"/,
    )
    expect(() => createMockApi({ chaos: { rate: 2 } })).toThrow(
      /^Invalid options: chaos\.rate: expected a rate from 0 to 1/,
    )
  })

  describe('over HTTP', () => {
    let server: RunningServer
    beforeAll(async () => {
      server = await startServer({ port: 0 })
    })
    afterAll(() => server.close())

    it.each(refusals)('400 naming the problem for %s', async (_name, setting, message) => {
      for (const path of ['/__mock/chaos', '/__mock/organisations/org-1/chaos']) {
        const answer = await fetch(`${server.url}${path}`, {
          method: 'PUT',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(setting),
        })
        expect(answer.status).toBe(400)
        const body = (await answer.json()) as { code: number; message: string }
        expect(body.code).toBe(400)
        expect(body.message).toMatch(message)
      }
      expect(await connectMockApi(server.url).chaos()).toBeNull()
    })

    it('404 for an organisation the mock does not have, on every method', async () => {
      const client = connectMockApi(server.url)
      for (const method of ['GET', 'PUT', 'DELETE']) {
        const answer = await fetch(`${server.url}/__mock/organisations/nobody/chaos`, {
          method,
          ...(method === 'PUT' && {
            headers: { 'content-type': 'application/json' },
            body: '{"rate":0.1}',
          }),
        })
        expect(await answer.json()).toEqual({ code: 404, message: 'Not found' })
      }
      await expect(client.organisations.chaos('nobody')).rejects.toMatchObject({ status: 404 })
      expect(() => createMockApi().organisations.setChaos('nobody', { rate: 0 })).toThrow(
        'Not found',
      )
    })

    it('answers PUT with the chaos, a seed drawn when none is given, GET the same, DELETE 204', async () => {
      const put = await fetch(`${server.url}/__mock/organisations/org-2/chaos`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ rate: 0.25, cases: ['delete-reset'], calls: 10, forMs: 60_000 }),
      })
      expect(put.status).toBe(200)
      const reading = (await put.json()) as { seed: number }
      expect(reading).toEqual({
        rate: 0.25,
        cases: ['delete-reset'],
        seed: expect.any(Number),
        calls: 10,
        forMs: 60_000,
        drawn: 0,
        failed: 0,
      })
      const got = await fetch(`${server.url}/__mock/organisations/org-2/chaos`)
      expect(await got.json()).toEqual(reading)
      const removed = await fetch(`${server.url}/__mock/organisations/org-2/chaos`, {
        method: 'DELETE',
      })
      expect(removed.status).toBe(204)
      expect(await (await fetch(`${server.url}/__mock/organisations/org-2/chaos`)).json()).toBe(
        null,
      )
      // With every case of both operations when none is named.
      const all = await connectMockApi(server.url).setChaos({ rate: 0, seed: 1 })
      expect(all.cases).toEqual(
        createMockApi()
          .failures.cases()
          .map((c) => c.name),
      )
      await connectMockApi(server.url).clearChaos()
    })
  })
})
