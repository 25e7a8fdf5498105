import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { HttpResponse, http } from 'msw'
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createMockApi, type Tenant, type WebhookEndpoint } from '../../src/root/index.ts'
import { type RunningServer, startServer } from '../../src/server/server.ts'
import { webhookLimits } from '../../src/webhooks/limits.ts'
import { type LocalReceiver, startReceiver } from '../support/webhook-delivery.ts'

/**
 * Webhook endpoints owned by an organisation, on one mock shared by tenants: each tenant's
 * receiver gets exactly its own organisation's events (over HTTP with raw calls, in-process and
 * through the handlers), the mock's own endpoint every one; no tenant lists, reads or removes
 * another's endpoint; a reset drops an organisation's pending retries and a removal its
 * endpoints; and a tenant holding its pending deliveries does not stop another's events.
 */

// Deliveries and a delayed call take real time; on a busy machine, more.
vi.setConfig({ testTimeout: 60_000 })

const json = { 'content-type': 'application/json' }
const users = [{ id: 'ada', registrationStatus: 'registered' as const }]

/** The message ids `receiver` got, in order. */
const idsAt = (receiver: LocalReceiver) =>
  receiver.received.map(({ headers }) => headers['svix-id'])

describe('over HTTP, with raw calls', () => {
  let server: RunningServer
  let mine: LocalReceiver
  const receivers: Record<'a' | 'b', LocalReceiver> = {} as never
  beforeAll(async () => {
    mine = await startReceiver()
    receivers.a = await startReceiver()
    receivers.b = await startReceiver()
    server = await startServer({ port: 0, webhooks: [{ url: mine.url }] })
  })
  afterAll(async () => {
    await server.close()
    await Promise.all([mine, receivers.a, receivers.b].map((receiver) => receiver.close()))
  })

  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      ...(body !== undefined && { headers: json, body: JSON.stringify(body) }),
    })
    const text = await response.text()
    return { status: response.status, body: text === '' ? undefined : JSON.parse(text) }
  }

  it("delivers each organisation's events to its own endpoints only, and every one to the mock's", async () => {
    const orgs = { a: '', b: '' }
    const endpoints = { a: '', b: '' }
    for (const name of ['a', 'b'] as const) {
      const created = await call('POST', '/__mock/organisations', { users })
      expect(created.status).toBe(201)
      orgs[name] = created.body.orgId
      const added = await call('POST', '/__mock/webhooks', {
        url: receivers[name].url,
        orgId: orgs[name],
      })
      expect(added).toMatchObject({ status: 201, body: { orgId: orgs[name] } })
      expect(added.body.secret).toMatch(/^whsec_/)
      endpoints[name] = added.body.id
    }
    const raised: Record<'a' | 'b', string[]> = { a: [], b: [] }
    for (let round = 0; round < 3; round++) {
      for (const name of ['a', 'b'] as const) {
        const event = await call('POST', '/__mock/events', {
          type: 'notifications.sent',
          orgId: orgs[name],
          id: 'ada',
        })
        expect(event.status).toBe(202)
        raised[name].push(event.body.id)
      }
    }
    await server.core.webhooks.settled()
    expect(idsAt(receivers.a)).toEqual(raised.a)
    expect(idsAt(receivers.b)).toEqual(raised.b)
    expect(new Set(idsAt(mine))).toEqual(new Set([...raised.a, ...raised.b]))

    // Listed, read and removed under its organisation only; never a secret over HTTP.
    const listed = await call('GET', `/__mock/webhooks?orgId=${orgs.a}`)
    expect(listed.body).toEqual([
      { id: endpoints.a, url: receivers.a.url, events: null, orgId: orgs.a },
    ])
    const deliveries = await call('GET', `/__mock/webhooks/deliveries?orgId=${orgs.a}`)
    expect(
      deliveries.body.map((d: { id: string; endpoint: string }) => [d.id, d.endpoint]),
    ).toEqual(raised.a.map((id) => [id, endpoints.a]))
    expect(await call('DELETE', `/__mock/webhooks/${endpoints.b}?orgId=${orgs.a}`)).toEqual({
      status: 404,
      body: { code: 404, message: 'Webhook endpoint not found' },
    })
    expect((await call('GET', `/__mock/webhooks?orgId=${orgs.b}`)).body).toHaveLength(1)
    expect((await call('DELETE', `/__mock/webhooks/${endpoints.b}?orgId=${orgs.b}`)).status).toBe(
      204,
    )
    expect((await call('GET', `/__mock/webhooks?orgId=${orgs.b}`)).body).toEqual([])
    // The unscoped list is the mock's view: every endpoint, still without secrets.
    const all = await call('GET', '/__mock/webhooks')
    expect(all.body.map((e: { id: string }) => e.id)).toContain(endpoints.a)
    expect(JSON.stringify(all.body)).not.toContain('whsec_')
  })

  it('answers 404 for an organisation the mock does not have', async () => {
    const url = receivers.a.url
    for (const [method, path, body] of [
      ['POST', '/__mock/webhooks', { url, orgId: 'nobody' }],
      ['GET', '/__mock/webhooks?orgId=nobody'],
      ['GET', '/__mock/webhooks/deliveries?orgId=nobody'],
    ] as const) {
      expect(await call(method, path, body)).toEqual({
        status: 404,
        body: { code: 404, message: 'Not found' },
      })
    }
  })

  it(`bounds an organisation's endpoints at ${webhookLimits.endpointsPerOrganisation}, apart from another's`, async () => {
    const a = (await call('POST', '/__mock/organisations', {})).body.orgId
    const b = (await call('POST', '/__mock/organisations', {})).body.orgId
    const add = (orgId: string) =>
      call('POST', '/__mock/webhooks', { url: 'http://127.0.0.1:9/hooks', orgId })
    for (let i = 0; i < webhookLimits.endpointsPerOrganisation; i++) {
      expect((await add(a)).status).toBe(201)
    }
    expect(await add(a)).toEqual({
      status: 400,
      body: {
        code: 400,
        message: `Invalid webhook: at most ${webhookLimits.endpointsPerOrganisation} endpoints per organisation`,
      },
    })
    expect((await add(b)).status).toBe(201)
  })
})

/** Two tenants of `api`, each with its own receiver, raise their own events: each gets its own. */
async function expectOwnDeliveries(
  tenants: Tenant[],
  received: (tenant: Tenant) => (string | undefined)[],
  urlOf: (tenant: Tenant) => string,
  settled: () => Promise<void>,
) {
  const endpoints: WebhookEndpoint[] = []
  for (const tenant of tenants) endpoints.push(await tenant.webhooks.add({ url: urlOf(tenant) }))
  const raised = new Map<Tenant, string[]>(tenants.map((tenant) => [tenant, []]))
  for (let round = 0; round < 3; round++) {
    for (const tenant of tenants) {
      const event = await tenant.raiseEvent({ type: 'user.course.started', id: 'ada' })
      raised.get(tenant)?.push(event.id)
    }
  }
  await settled()
  for (const [at, tenant] of tenants.entries()) {
    expect(received(tenant)).toEqual(raised.get(tenant))
    // Its list is its own endpoint, and its deliveries those to it.
    const listed = await tenant.webhooks.list()
    expect(listed.map(({ id, orgId }) => [id, orgId])).toEqual([[endpoints[at]?.id, tenant.orgId]])
    const deliveries = await tenant.webhooks.deliveries()
    expect(deliveries.map(({ id, endpoint, delivered }) => [id, endpoint, delivered])).toEqual(
      (raised.get(tenant) ?? []).map((id) => [id, endpoints[at]?.id, true]),
    )
  }
  const [a, b] = tenants as [Tenant, Tenant]
  const [endpointA] = endpoints
  // Another tenant neither lists, reads, removes it nor sees its secret.
  expect(JSON.stringify(await b.webhooks.list())).not.toContain(endpointA?.secret)
  expect(JSON.stringify(await b.webhooks.deliveries())).not.toContain(endpointA?.id)
  expect(await b.webhooks.remove(endpointA?.id ?? '')).toBe(false)
  expect((await a.webhooks.list()).map(({ id }) => id)).toEqual([endpointA?.id])
}

describe('in-process', () => {
  it('delivers each tenant its own events, to a receiver of its own', async () => {
    const api = createMockApi()
    const receivers = await Promise.all([startReceiver(), startReceiver()])
    try {
      const tenants = await Promise.all([
        api.organisations.create({ users }),
        api.organisations.create({ users }),
      ])
      const receiverOf = (tenant: Tenant) => receivers[tenants.indexOf(tenant)] as LocalReceiver
      await expectOwnDeliveries(
        tenants,
        (tenant) => idsAt(receiverOf(tenant)),
        (tenant) => receiverOf(tenant).url,
        () => api.webhooks.settled(),
      )
    } finally {
      await Promise.all(receivers.map((receiver) => receiver.close()))
    }
  })

  it("drops an organisation's pending retries with its reset, and its endpoints with its removal", async () => {
    // A retry an hour away on a frozen clock: only a reset ends it.
    const api = createMockApi({ webhookRetrySchedule: [3_600_000] })
    const tenant = await api.organisations.create({ users })
    const other = await api.organisations.create({ users })
    const endpoint = await tenant.webhooks.add({ url: 'http://127.0.0.1:9/refused' })
    const kept = await other.webhooks.add({ url: 'http://127.0.0.1:9/refused-too' })
    await tenant.setClock({ frozenAt: '2030-01-01T00:00:00Z' })
    await other.setClock({ frozenAt: '2030-01-01T00:00:00Z' })
    await tenant.raiseEvent({ type: 'user.course.started', id: 'ada' })
    await other.raiseEvent({ type: 'user.course.started', id: 'ada' })
    await vi.waitFor(
      async () => {
        for (const t of [tenant, other]) {
          expect((await t.webhooks.deliveries())[0]?.attempts).toHaveLength(1)
        }
      },
      { timeout: 30_000, interval: 20 },
    )
    await other.reset()
    expect(await other.webhooks.deliveries()).toEqual([])
    // Its endpoint stays; the tenant's retry is still pending, so nothing is settled yet.
    expect((await other.webhooks.list()).map(({ id }) => id)).toEqual([kept.id])
    expect(await tenant.webhooks.deliveries()).toHaveLength(1)
    await tenant.reset()
    const settled = Promise.race([
      api.webhooks.settled().then(() => 'settled'),
      new Promise((resolve) => setTimeout(resolve, 10_000, 'still pending')),
    ])
    expect(await settled).toBe('settled')
    expect((await tenant.webhooks.list()).map(({ id }) => id)).toEqual([endpoint.id])
    await tenant.remove()
    expect(api.webhooks.list().map(({ id }) => id)).toEqual([kept.id])
  })
})

describe('through the handlers', () => {
  const received: Record<string, string[]> = {}
  const urlOf = (tenant: Tenant) => `https://${tenant.orgId}.receiver.test/hooks`
  const server = setupServer(
    http.post('https://:host/hooks', async ({ request }) => {
      const host = new URL(request.url).host
      received[host] ??= []
      received[host].push(request.headers.get('svix-id') ?? '')
      return new HttpResponse(null, { status: 204 })
    }),
  )
  beforeAll(() => server.listen({ onUnhandledFrame: 'error' }))
  afterAll(() => server.close())

  it("delivers each tenant its own events, identified through the mock's handlers", async () => {
    const api = createMockApi()
    server.use(...api.handlers)
    const tenants = await Promise.all([
      api.organisations.create({ users }),
      api.organisations.create({ users }),
    ])
    for (const tenant of tenants) {
      const identified = await fetch(`${tenant.baseUrl}/api/v1/users/identify`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tenant.apiKey}`, ...json },
        body: JSON.stringify({ id: 'ada', orgId: tenant.orgId }),
      })
      expect(identified.status).toBe(200)
    }
    await expectOwnDeliveries(
      tenants,
      (tenant) => received[new URL(urlOf(tenant)).host] ?? [],
      urlOf,
      () => api.webhooks.settled(),
    )
  })
})

describe('pending deliveries, a share for each organisation', () => {
  let server: RunningServer
  let receiver: LocalReceiver
  beforeAll(async () => {
    receiver = await startReceiver()
    server = await startServer({ port: 0, webhookRetrySchedule: [3_600_000] })
  })
  afterAll(async () => {
    await server.close()
    await receiver.close()
  })

  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      ...(body !== undefined && { headers: json, body: JSON.stringify(body) }),
    })
    const text = await response.text()
    return { status: response.status, body: text === '' ? undefined : JSON.parse(text) }
  }

  it("answers another tenant's events 202 and delivers them while a tenant holds every pending delivery (frozen clock, failing receiver)", async () => {
    const holder = (await call('POST', '/__mock/organisations', { users })).body.orgId
    const other = (await call('POST', '/__mock/organisations', { users })).body.orgId
    await call('PUT', `/__mock/organisations/${holder}/clock`, { frozenAt: '2030-01-01T00:00:00Z' })
    const perEvent = webhookLimits.endpointsPerOrganisation
    for (let i = 0; i < perEvent; i++) {
      const added = await call('POST', '/__mock/webhooks', {
        url: `http://127.0.0.1:9/refused-${i}`,
        orgId: holder,
      })
      expect(added.status).toBe(201)
    }
    const raise = (orgId: string) =>
      call('POST', '/__mock/events', { type: 'user.course.started', orgId, id: 'ada' })
    // Alone, the holder may take the whole pool: nobody else wants any of it.
    for (let i = 0; i < webhookLimits.pendingDeliveries / perEvent; i++) {
      expect((await raise(holder)).status).toBe(202)
    }
    expect(await raise(holder)).toEqual({
      status: 429,
      body: { code: 429, message: 'Too many webhook deliveries pending' },
    })
    expect(
      (await call('POST', '/__mock/webhooks', { url: receiver.url, orgId: other })).status,
    ).toBe(201)
    const raised: string[] = []
    for (let i = 0; i < 3; i++) {
      const event = await raise(other)
      expect(event.status).toBe(202)
      raised.push(event.body.id)
    }
    await vi.waitFor(() => expect(idsAt(receiver)).toEqual(raised), {
      timeout: 30_000,
      interval: 20,
    })
    // The holder, the largest, gave way: its newest deliveries were given up, and said so.
    const given = (await call('GET', `/__mock/webhooks/deliveries?orgId=${holder}`)).body.filter(
      (d: { attempts: { error?: string }[] }) =>
        d.attempts.some((a) => a.error?.startsWith('given up: its organisation held the most')),
    )
    // One for the first event; one more for each that found the pool full again (the one before
    // it still pending).
    expect(given.length).toBeGreaterThanOrEqual(1)
    expect(given.length).toBeLessThanOrEqual(raised.length)
    // Still past its share, it gets no more room while the pool is full.
    expect((await raise(holder)).status).toBe(429)
  })
})

describe("an organisation's life", () => {
  it('never counts a call or a delivery of a removed organisation, ending after the removal, for a new one of the same id', async () => {
    const server = await startServer({ port: 0 })
    // A receiver that holds its answer until told: the delivery is under way across the removal.
    let release = () => {}
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    let arrived = 0
    const receiver = createServer((request, response) => {
      arrived++
      request.resume()
      void held.then(() => response.end())
    })
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
    const { port } = receiver.address() as AddressInfo
    try {
      const call = async (method: string, path: string, body?: unknown) => {
        const response = await fetch(`${server.url}${path}`, {
          method,
          ...(body !== undefined && { headers: json, body: JSON.stringify(body) }),
        })
        const text = await response.text()
        return { status: response.status, body: text === '' ? undefined : JSON.parse(text) }
      }
      const orgId = 'one-life'
      const { apiKey } = (await call('POST', '/__mock/organisations', { orgId, users })).body
      const url = `http://127.0.0.1:${port}/hooks`
      expect((await call('POST', '/__mock/webhooks', { url, orgId })).status).toBe(201)
      const event = { type: 'user.course.started', orgId, id: 'ada' }
      expect((await call('POST', '/__mock/events', event)).status).toBe(202)
      await vi.waitFor(() => expect(arrived).toBe(1), { timeout: 30_000, interval: 10 })
      await call('POST', '/__mock/faults', {
        operation: 'identify',
        status: 500,
        // Long enough for a removal and a creation on a busy machine.
        delayMs: 5_000,
        orgId,
      })
      const answer = fetch(`${server.url}/api/v1/users/identify`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, ...json },
        body: JSON.stringify({ id: 'ada', orgId }),
      })
      // Once its fault is taken, the call is in its delay.
      await vi.waitFor(
        async () => expect((await call('GET', `/__mock/faults?orgId=${orgId}`)).body).toEqual([]),
        { timeout: 30_000, interval: 10 },
      )
      expect((await call('DELETE', `/__mock/organisations/${orgId}`)).status).toBe(204)
      expect((await call('POST', '/__mock/organisations', { orgId })).status).toBe(201)
      expect((await answer).status).toBe(500)
      release()
      await server.core.webhooks.settled()
      expect((await call('GET', `/__mock/webhooks/deliveries?orgId=${orgId}`)).body).toEqual([])
      expect((await call('GET', `/__mock/webhooks?orgId=${orgId}`)).body).toEqual([])
      const coverage = (await call('GET', `/__mock/coverage?orgId=${orgId}`)).body
      expect(coverage.met).toBe(0)
      expect((await call('GET', `/__mock/requests?orgId=${orgId}`)).body).toEqual([])
      // It still counts for the whole mock.
      const all = (await call('GET', '/__mock/coverage')).body
      expect(all.items.find((item: { id: string }) => item.id === 'identify.500')?.count).toBe(1)
    } finally {
      release()
      await server.close()
      await new Promise((resolve) => receiver.close(resolve))
    }
  })
})
