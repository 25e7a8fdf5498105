import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { OrganisationInput } from '../../src/api/data-file.ts'
import { matchers } from '../../src/matchers/matchers.ts'
import {
  ApiError,
  type Call,
  type Credentials,
  type Operation,
  type ShapeCase,
  type Tenant,
} from '../../src/root/index.ts'
import { startReceiver } from './webhook-delivery.ts'

expect.extend(matchers)

/**
 * The controls a test uses, as both `createMockApi()` and `connectMockApi(url)` give them: each
 * awaited, so that one test runs unchanged in-process and over HTTP.
 */
export interface HarnessApi {
  readonly credentials: Credentials[] | Promise<Credentials[]>
  organisations: { create(input?: OrganisationInput): Promise<Tenant> }
  calls(operation?: Operation, scope?: { orgId?: string }): Call[] | Promise<Call[]>
  readonly shapes: { cases(): ShapeCase[] | Promise<ShapeCase[]> }
}

/** A mock behind one transport: its controls, the `fetch` that reaches its API, and its end. */
export interface HarnessTransport {
  api: HarnessApi
  fetch: typeof fetch
  close(): Promise<void>
  /** `false` where the mock cannot reach a receiver on this host's loopback (a container). */
  reachesLoopback?: false
}

/**
 * The tenant handles' suite: what `organisations.create()` resolves to and what its controls
 * touch, run against a mock behind `start()` (in-process, the server, the container).
 */
export function describeTenantHandles(name: string, start: () => Promise<HarnessTransport>) {
  describe(`tenant handles: ${name}`, () => {
    let mock: HarnessTransport
    beforeAll(async () => {
      mock = await start()
    })
    afterAll(() => mock?.close())

    const identify = (tenant: Tenant, id: string) =>
      mock.fetch(`${tenant.baseUrl}/api/v1/users/identify`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tenant.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ id, orgId: tenant.orgId }),
      })
    const remove = (tenant: Tenant, id: string) =>
      mock.fetch(`${tenant.baseUrl}/api/v1/users/${tenant.orgId}/${id}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${tenant.apiKey}` },
      })
    const statusOf = async (answer: Promise<Response>) => {
      const response = await answer
      await response.body?.cancel()
      return response.status
    }

    it('creates a tenant whose key and base URL reach its API, listed among the credentials', async () => {
      const tenant = await mock.api.organisations.create({ name: 'Handle' })
      expect(tenant).toMatchObject({
        orgId: expect.stringMatching(/^tenant-/),
        apiKey: expect.stringMatching(/^sk_test_/),
        baseUrl: expect.stringMatching(/^https?:\/\//),
      })
      expect(await statusOf(identify(tenant, 'ada'))).toBe(200)
      expect(await mock.api.credentials).toContainEqual({
        orgId: tenant.orgId,
        name: 'Handle',
        apiKeys: [tenant.apiKey],
      })
      await tenant.remove()
      expect(await statusOf(identify(tenant, 'ada'))).toBe(401)
      await expect(tenant.remove()).rejects.toMatchObject({ constructor: ApiError, status: 404 })
      await expect(mock.api.organisations.create({ orgId: 'org-1' })).rejects.toMatchObject({
        constructor: ApiError,
        status: 409,
        message: 'Conflict',
      })
    })

    it('puts a user in an exact state, then replaces it', async () => {
      const tenant = await mock.api.organisations.create()
      expect(await tenant.putUser('ada', { registrationStatus: 'archived' })).toEqual({
        created: true,
      })
      const answer = await (await identify(tenant, 'ada')).json()
      expect(answer.data.registrationStatus).toBe('archived')
      expect(await tenant.putUser('ada', { registrationStatus: 'registered' })).toEqual({
        created: false,
      })
      await tenant.remove()
    })

    it('keeps two tenants run in parallel apart: calls, faults, resets', async () => {
      const [a, b] = await Promise.all([
        mock.api.organisations.create({ users: [{ id: 'kept', registrationStatus: 'archived' }] }),
        mock.api.organisations.create({ users: [{ id: 'kept', registrationStatus: 'archived' }] }),
      ])
      if (!a || !b) throw new Error('two tenants')
      const run = async (tenant: Tenant, other: Tenant) => {
        await tenant.failNext('identify', { status: 500, count: 2 })
        await tenant.failNext('delete', { status: 404, id: 'kept' })
        const statuses = []
        for (const id of ['one', 'two', 'three'])
          statuses.push(await statusOf(identify(tenant, id)))
        statuses.push(await statusOf(remove(tenant, 'kept')))
        statuses.push(await statusOf(remove(tenant, 'kept')))
        expect(statuses).toEqual([500, 500, 200, 404, 200])
        const calls = await tenant.calls()
        expect(calls.map((call) => call.request)).toEqual([
          { id: 'one', orgId: tenant.orgId },
          { id: 'two', orgId: tenant.orgId },
          { id: 'three', orgId: tenant.orgId },
          { orgId: tenant.orgId, id: 'kept' },
          { orgId: tenant.orgId, id: 'kept' },
        ])
        await expect(tenant).toHaveIdentified({ id: 'three' }, { status: 200, times: 1 })
        await expect(tenant).toHaveDeleted({ id: 'kept' }, { times: 2 })
        await expect(tenant).not.toHaveIdentified({ orgId: other.orgId })
      }
      await Promise.all([run(a, b), run(b, a)])

      // A's reset brings its user back and forgets its calls; B keeps its own.
      await a.reset()
      expect(await a.calls()).toEqual([])
      expect(await b.calls('identify')).toHaveLength(3)
      expect((await (await identify(a, 'kept')).json()).data.registrationStatus).toBe('archived')
      expect(await statusOf(remove(b, 'kept'))).toBe(404)
      // The mock-wide reading sees both, each under its organisation.
      expect(await mock.api.calls('identify', { orgId: a.orgId })).toHaveLength(1)
      await expect(mock.api).toHaveIdentified({ id: 'three' }, { orgId: b.orgId, times: 1 })
      await Promise.all([a.remove(), b.remove()])
    })

    it('runs every method of the handle on two tenants in parallel, each touching only its own', async () => {
      /** One step per method of the handle, on `tenant` with `other` beside it: a method added to the handle without one is a type error here. */
      type Steps = {
        [N in Exclude<keyof Tenant, 'orgId' | 'apiKey' | 'baseUrl'>]: (
          tenant: Tenant,
          other: Tenant,
        ) => Promise<void>
      }
      const tokenOf = async (tenant: Tenant, id: string) =>
        (await (await identify(tenant, id)).json()).token as string
      const steps: Steps = {
        putUser: async (tenant) => {
          const ada = { registrationStatus: 'archived', lastName: 'Lovelace' } as const
          expect(await tenant.putUser('ada', ada)).toEqual({ created: true })
        },
        getUser: async (tenant) => {
          expect(await tenant.getUser('ada')).toMatchObject({
            orgId: tenant.orgId,
            id: 'ada',
            profile: { registrationStatus: 'archived' },
          })
        },
        listUsers: async (tenant) => {
          // A name, not the id: the user ids are UUIDs, whose hex digits can spell `ada`.
          const { users } = await tenant.listUsers({ q: 'lovelace' })
          expect(users.map((user) => user.id)).toEqual(['ada'])
        },
        setShapes: async (tenant) => {
          const [first] = await mock.api.shapes.cases()
          await tenant.setShapes(first?.name ?? 'full')
          await statusOf(identify(tenant, 'ada'))
          expect((await tenant.calls('identify')).at(-1)).toMatchObject({ shape: first?.name })
          await tenant.setShapes('full')
        },
        redeemToken: async (tenant, other) => {
          const token = await tokenOf(tenant, 'ada')
          expect(await other.redeemToken(token)).toEqual({
            ok: false,
            reason: 'wrong-organisation',
          })
          expect(await tenant.redeemToken(token)).toMatchObject({
            ok: true,
            user: { orgId: tenant.orgId, id: 'ada' },
          })
          expect(await tenant.redeemToken(token)).toEqual({ ok: false, reason: 'already-used' })
        },
        raiseEvent: async (tenant) => {
          const { userId } = (await tenant.getUser('ada')).profile
          expect(await tenant.raiseEvent({ type: 'notifications.sent', id: 'ada' })).toMatchObject({
            type: 'notifications.sent',
            data: { notifications: [{ user_id: userId, custom_id: 'ada' }] },
          })
          await expect(
            tenant.raiseEvent({ type: 'user.course.started', id: 'nobody' }),
          ).rejects.toMatchObject({ status: 404, message: 'User not found' })
        },
        webhooks: async (tenant, other) => {
          const receiver = await startReceiver()
          try {
            const endpoint = await tenant.webhooks.add({ url: receiver.url })
            expect(endpoint).toMatchObject({ orgId: tenant.orgId, secret: /^whsec_/ })
            expect((await tenant.webhooks.list()).map(({ id }) => id)).toEqual([endpoint.id])
            // Another tenant neither sees it nor removes it.
            expect((await other.webhooks.list()).map(({ id }) => id)).not.toContain(endpoint.id)
            expect(await other.webhooks.remove(endpoint.id)).toBe(false)
            const raised = [
              await tenant.raiseEvent({ type: 'notifications.sent', id: 'ada' }),
              await tenant.raiseEvent({ type: 'user.course.started', id: 'ada' }),
            ]
            const own = raised.map(({ id }) => id)
            await vi.waitFor(
              async () => {
                const deliveries = await tenant.webhooks.deliveries()
                // From a container, a receiver on this host's loopback is out of reach.
                const reached = mock.reachesLoopback === false ? expect.any(Boolean) : true
                expect(deliveries.map(({ id, delivered }) => [id, delivered])).toEqual(
                  own.map((id) => [id, reached]),
                )
              },
              { timeout: 30_000, interval: 50 },
            )
            if (mock.reachesLoopback !== false) {
              expect(receiver.received.map(({ headers }) => headers['svix-id'])).toEqual(own)
            }
            const others = await other.webhooks.deliveries()
            expect(others.filter(({ endpoint: id }) => id === endpoint.id)).toEqual([])
            expect(await tenant.webhooks.remove(endpoint.id)).toBe(true)
            expect(await tenant.webhooks.list()).toEqual([])
          } finally {
            await receiver.close()
          }
        },
        failNext: async (tenant) => {
          await tenant.failNext('identify', { status: 500 })
          await tenant.failNext('delete', { status: 404, id: 'ada' })
        },
        queuedFaults: async (tenant) => {
          expect(await tenant.queuedFaults()).toEqual([
            { operation: 'identify', status: 500, remaining: 1, delayMs: 0, orgId: tenant.orgId },
            {
              operation: 'delete',
              status: 404,
              remaining: 1,
              delayMs: 0,
              orgId: tenant.orgId,
              id: 'ada',
            },
          ])
        },
        clearFaults: async (tenant) => {
          await tenant.clearFaults()
          expect(await tenant.queuedFaults()).toEqual([])
          expect(await statusOf(identify(tenant, 'grace'))).toBe(200)
        },
        requests: async (tenant) => {
          const paths = (await tenant.requests()).map((entry) => entry.path)
          expect(paths).toContain('/api/v1/users/identify')
          expect(paths.every((path) => !path.includes('/users/identify?'))).toBe(true)
        },
        calls: async (tenant, other) => {
          const calls = await tenant.calls('identify')
          expect(calls.map((call) => call.request)).toEqual(
            ['ada', 'ada', 'grace'].map((id) => ({ id, orgId: tenant.orgId })),
          )
          await expect(tenant).toHaveIdentified({ id: 'grace' }, { status: 200, times: 1 })
          await expect(tenant).not.toHaveIdentified({ orgId: other.orgId })
        },
        coverage: async (tenant) => {
          const count = (report: { items: { id: string; count: number }[] }, id: string) =>
            report.items.find((item) => item.id === id)?.count
          const report = await tenant.coverage()
          expect(count(report, 'identify.200.created')).toBe(1)
          expect(count(report, 'identify.200.updated')).toBe(2)
          expect(count(report, 'delete.200')).toBe(0)
        },
        deleteUser: async (tenant) => {
          expect(await tenant.deleteUser('grace')).toEqual({ id: 'grace', deleted: true })
          await expect(tenant.getUser('grace')).rejects.toMatchObject({ status: 404 })
        },
        setLatency: async (tenant) => {
          await tenant.setLatency({ fixedMs: 5 })
          await statusOf(identify(tenant, 'ada'))
          expect((await tenant.requests()).at(-1)).toMatchObject({ delayMs: 5 })
          await tenant.setLatency(null)
        },
        setChaos: async (tenant) => {
          const chaos = { rate: 1, cases: ['identify-gateway-503' as const], seed: 7 }
          expect(await tenant.setChaos(chaos)).toEqual({ ...chaos, drawn: 0, failed: 0 })
          // The other tenant, running the same steps meanwhile, never meets this one's chaos.
          expect(await statusOf(identify(tenant, 'ada'))).toBe(503)
          expect((await tenant.requests()).at(-1)).toMatchObject({
            status: 503,
            failure: { kind: 'gateway', case: 'identify-gateway-503', chaos: true },
          })
        },
        chaos: async (tenant) => {
          expect(await tenant.chaos()).toMatchObject({ seed: 7, drawn: 1, failed: 1 })
        },
        clearChaos: async (tenant) => {
          await tenant.clearChaos()
          expect(await tenant.chaos()).toBeNull()
          expect(await statusOf(identify(tenant, 'ada'))).toBe(200)
        },
        clock: async (tenant) => {
          // The other tenant's clock, set in its own run, is not this one's: it follows the mock's.
          expect(await tenant.clock()).toMatchObject({ mode: 'real' })
        },
        setClock: async (tenant) => {
          expect(await tenant.setClock({ frozenAt: '2030-01-01T00:00:00Z' })).toEqual({
            now: '2030-01-01T00:00:00.000Z',
            mode: 'frozen',
          })
        },
        advanceClock: async (tenant) => {
          const token = await tokenOf(tenant, 'ada')
          expect(await tenant.advanceClock(301_000)).toEqual({
            now: '2030-01-01T00:05:01.000Z',
            mode: 'frozen',
          })
          expect(await tenant.redeemToken(token)).toEqual({ ok: false, reason: 'expired' })
          await tenant.setClock({ real: true })
        },
        saveSnapshot: async (tenant) => {
          expect(await tenant.saveSnapshot('handle')).toMatchObject({ name: 'handle', users: 2 })
          await expect(tenant.saveSnapshot('handle')).rejects.toMatchObject({ status: 409 })
        },
        snapshots: async (tenant) => {
          expect(await tenant.snapshots()).toEqual([
            { name: 'handle', createdAt: expect.any(String), users: 2, bytes: expect.any(Number) },
          ])
        },
        fork: async (tenant, other) => {
          const fork = await tenant.fork('handle')
          expect(fork.orgId).not.toBe(tenant.orgId)
          expect(fork.apiKey).not.toBe(tenant.apiKey)
          expect(await statusOf(identify(fork, 'ada'))).toBe(200)
          expect((await fork.getUser('kept')).profile.registrationStatus).toBe('archived')
          await fork.remove()
          // Only its own organisation's snapshots: the other tenant's fork names its own.
          await expect(other.fork('no-such-snapshot')).rejects.toMatchObject({ status: 404 })
        },
        restoreSnapshot: async (tenant) => {
          await tenant.deleteUser('ada')
          await tenant.restoreSnapshot('handle')
          expect((await tenant.getUser('ada')).profile.registrationStatus).toBe('archived')
          expect(await tenant.calls()).toEqual([])
        },
        dropSnapshot: async (tenant) => {
          await tenant.dropSnapshot('handle')
          expect(await tenant.snapshots()).toEqual([])
          await expect(tenant.dropSnapshot('handle')).rejects.toMatchObject({ status: 404 })
        },
        reset: async (tenant) => {
          await tenant.reset()
          expect(await tenant.calls()).toEqual([])
          await expect(tenant.getUser('ada')).rejects.toMatchObject({ status: 404 })
          expect((await tenant.getUser('kept')).profile.registrationStatus).toBe('archived')
        },
        remove: async (tenant) => {
          await tenant.remove()
          await expect(tenant.getUser('kept')).rejects.toMatchObject({ status: 404 })
        },
      }
      const [a, b] = await Promise.all([
        mock.api.organisations.create({ users: [{ id: 'kept', registrationStatus: 'archived' }] }),
        mock.api.organisations.create({ users: [{ id: 'kept', registrationStatus: 'archived' }] }),
      ])
      if (!a || !b) throw new Error('two tenants')
      const run = async (tenant: Tenant, other: Tenant) => {
        for (const [name, step] of Object.entries(steps)) {
          await step(tenant, other).catch((error: unknown) => {
            throw new Error(`tenant.${name}: ${(error as Error).message}`, { cause: error })
          })
        }
      }
      await Promise.all([run(a, b), run(b, a)])
    })

    it('answers a tenant in each case of the covering set it sets, and no other tenant', async () => {
      const users: OrganisationInput['users'] = [{ id: 'ada', registrationStatus: 'registered' }]
      const [a, b] = await Promise.all([
        mock.api.organisations.create({ users }),
        mock.api.organisations.create({ users }),
      ])
      if (!a || !b) throw new Error('two tenants')
      const fieldsOf = async (tenant: Tenant) =>
        Object.keys((await (await identify(tenant, 'ada')).json()).data).sort()
      const everyField = await fieldsOf(b)
      const cases = await mock.api.shapes.cases()
      expect(cases.length).toBeGreaterThan(1)
      const seen = new Set<string>()
      for (const { name } of cases) {
        await a.setShapes(name)
        seen.add((await fieldsOf(a)).join())
        expect((await a.calls('identify')).at(-1)).toMatchObject({ shape: name })
        expect(await fieldsOf(b)).toEqual(everyField)
      }
      // Some case leaves a null field out: the tenant's answers took other forms than B's.
      expect([...seen].some((fields) => fields !== everyField.join())).toBe(true)
      expect((await b.calls('identify')).every((call) => call.shape === 'full')).toBe(true)
      // In-process a TypeError, over HTTP the 400's ApiError: the same words either way.
      await expect(a.setShapes('no-such-case')).rejects.toThrow(/^Invalid request parameters: /)
      await Promise.all([a.remove(), b.remove()])
    })
  })
}
