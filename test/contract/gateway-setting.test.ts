import { setupServer } from 'msw/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMockApi } from '../../src/root/index.ts'
import { type RunningServer, startServer } from '../../src/server/server.ts'
import { controlCall } from '../support/control-call.ts'

/**
 * The gateway in front of the API, set and read on every way in: the option, a data file's
 * organisation, a created organisation, the control rows over HTTP and in-process; refused with
 * the problem named; returned by a reset to its setting at creation. And what `api.fetch` meets
 * behind it.
 */

const baseUrl = 'https://gateway.example.test'
const none = { gateway: 'none', readTimeoutMs: 60_000 }

describe('the gateway setting, in-process', () => {
  it('follows the option, then the mock, then the organisation; a reset returns each to its start', async () => {
    const api = createMockApi({
      baseUrl,
      gateway: 'haproxy',
      gatewayReadTimeoutMs: 2000,
      data: {
        organisations: [
          { orgId: 'behind-nginx', apiKeys: ['sk_nginx_key'], gateway: { gateway: 'nginx' } },
        ],
        users: [],
      },
    })
    expect(await api.gateway()).toEqual({ gateway: 'haproxy', readTimeoutMs: 2000 })
    expect(await api.organisations.gateway('behind-nginx')).toEqual({
      gateway: 'nginx',
      readTimeoutMs: 60_000,
      buffering: true,
    })
    const tenant = await api.organisations.create({
      gateway: { gateway: 'nginx', readTimeoutMs: 50, buffering: false },
    })
    expect(await tenant.gateway()).toEqual({
      gateway: 'nginx',
      readTimeoutMs: 50,
      buffering: false,
    })
    const plain = await api.organisations.create()
    expect(await plain.gateway()).toEqual({ gateway: 'haproxy', readTimeoutMs: 2000 })

    expect(await api.setGateway({ gateway: 'none' })).toEqual(none)
    expect(await plain.gateway()).toEqual(none)
    expect(await tenant.setGateway({ gateway: 'haproxy' })).toEqual({
      gateway: 'haproxy',
      readTimeoutMs: 60_000,
    })
    await tenant.reset()
    expect(await tenant.gateway()).toEqual({
      gateway: 'nginx',
      readTimeoutMs: 50,
      buffering: false,
    })
    expect(await tenant.setGateway({ gateway: null })).toEqual(none)
    await api.organisations.setGateway('behind-nginx', { gateway: 'none' })
    await api.reset()
    expect(await api.gateway()).toEqual({ gateway: 'haproxy', readTimeoutMs: 2000 })
    expect((await api.organisations.gateway('behind-nginx')).gateway).toBe('nginx')
  })

  it('refuses anything else with a TypeError naming the problem, and an unknown organisation', async () => {
    const api = createMockApi({ baseUrl })
    const refusal = (run: () => Promise<unknown>) =>
      run().then(
        () => 'accepted',
        (error: Error) => `${error.name}: ${error.message}`,
      )
    expect(await refusal(() => api.setGateway({ gateway: 'envoy' } as never))).toMatch(
      /^TypeError: Invalid request parameters: .*gateway.*expected none, nginx or haproxy, not "envoy"/,
    )
    expect(await refusal(() => api.setGateway({ gateway: 'nginx', readTimeoutMs: 0 }))).toMatch(
      /^TypeError: .*readTimeoutMs.*from 1 to 3600000/,
    )
    expect(await refusal(() => api.setGateway({ gateway: 'haproxy', buffering: false }))).toMatch(
      /^TypeError: .*buffering.*nginx setting/,
    )
    expect(await refusal(() => api.setGateway({ gateway: null } as never))).toMatch(/^TypeError: /)
    expect(await refusal(() => api.setGateway({ gateway: 'nginx', retries: 2 } as never))).toMatch(
      /^TypeError: .*retries/,
    )
    expect(await refusal(() => api.organisations.gateway('nobody'))).toMatch(/Not found/)
    expect(() => createMockApi({ gateway: 'traefik' as never })).toThrow(TypeError)
  })

  it('puts the page of the gateway in front of api.fetch, with its reason phrase', async () => {
    const api = createMockApi({ baseUrl, gateway: 'nginx', gatewayReadTimeoutMs: 100 })
    const tenant = await api.organisations.create({
      users: [{ id: 'ada', registrationStatus: 'registered' }],
    })
    const deleteAda = () =>
      api.fetch(`${baseUrl}/api/v1/users/${tenant.orgId}/ada`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${tenant.apiKey}` },
      })
    await tenant.failNext('delete-reset')
    const reset = await deleteAda()
    expect([reset.status, reset.statusText, reset.headers.get('content-type')]).toEqual([
      502,
      'Bad Gateway',
      'text/html',
    ])
    expect(reset.headers.get('server')).toBe('nginx')
    expect(await reset.text()).toContain('<center><h1>502 Bad Gateway</h1></center>')

    await tenant.failNext('delete-hang-applied')
    const hang = await deleteAda()
    expect([hang.status, hang.statusText]).toEqual([504, 'Gateway Time-out'])

    // Buffered, a slow body comes whole; a pause past the read timeout gives headers and no body.
    await tenant.failNext('delete', { kind: 'slow', delayMs: 50 })
    const whole = await deleteAda()
    expect(await whole.text()).toBe('{"code":404,"message":"User not found"}')
    await api.setGateway({ gateway: 'nginx', readTimeoutMs: 10 })
    await tenant.failNext('identify', { kind: 'slow', delayMs: 700 })
    const cut = await api.fetch(`${baseUrl}/api/v1/users/identify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'grace', orgId: tenant.orgId }),
    })
    expect(cut.status).toBe(200)
    await expect(cut.text()).rejects.toThrow(TypeError)
    expect(api.requests({ orgId: tenant.orgId }).map((e) => e.failure)).toEqual([
      { kind: 'reset', status: 502, applied: false, gateway: 'nginx' },
      { kind: 'hang', status: 504, applied: true, gateway: 'nginx' },
      { kind: 'slow', applied: true, gateway: 'nginx' },
      { kind: 'slow', applied: true, gateway: 'nginx' },
    ])
    const coverage = await api.coverage({ orgId: tenant.orgId })
    const met = (id: string) => coverage.items.find((item) => item.id === id)?.count
    expect(met('failure.delete-reset')).toBe(1)
    expect(met('failure.delete-hang-applied')).toBe(1)
  })
})

describe('the MSW handlers behind a gateway', () => {
  const api = createMockApi({ baseUrl, gateway: 'haproxy' })
  const msw = setupServer(...api.handlers)
  beforeAll(() => msw.listen({ onUnhandledFrame: 'bypass' }))
  afterAll(() => msw.close())

  it("answer the gateway's page, and a 503 with the Retry-After asked as a date", async () => {
    const tenant = await api.organisations.create({
      users: [{ id: 'ada', registrationStatus: 'registered' }],
    })
    const deleteAda = () =>
      fetch(`${baseUrl}/api/v1/users/${tenant.orgId}/ada`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${tenant.apiKey}` },
      })
    await tenant.failNext('delete-empty-applied')
    const empty = await deleteAda()
    expect([empty.status, empty.headers.get('cache-control'), empty.headers.get('server')]).toEqual(
      [502, 'no-cache', null],
    )
    expect(await empty.text()).toBe(
      '<html><body><h1>502 Bad Gateway</h1>\nThe server returned an invalid or incomplete response.\n</body></html>\n',
    )
    await tenant.failNext('delete', {
      kind: 'gateway',
      status: 503,
      retryAfterSeconds: 120,
      retryAfterDate: true,
    })
    const before = Date.now()
    const unavailable = await deleteAda()
    expect(unavailable.status).toBe(503)
    const at = Date.parse(unavailable.headers.get('retry-after') ?? '')
    // Whole seconds, 120 of them after the answer.
    expect(at).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + 119_000)
    expect(at).toBeLessThanOrEqual(Date.now() + 121_000)
  })
})

describe('the gateway setting, over HTTP', () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer({ port: 0 })
  })
  afterAll(() => server.close())

  it('answers 200 with the setting in force, 400 naming the problem, 404 for an unknown organisation', async () => {
    const call = (method: string, path: string, body?: unknown) =>
      controlCall(server.url, method, path, body)
    expect(await call('GET', '/gateway')).toEqual({ status: 200, body: none })
    const created = (await call('POST', '/organisations', { gateway: { gateway: 'haproxy' } }))
      .body as { orgId: string }
    expect(await call('GET', `/organisations/${created.orgId}/gateway`)).toEqual({
      status: 200,
      body: { gateway: 'haproxy', readTimeoutMs: 60_000 },
    })
    expect(await call('PUT', '/gateway', { gateway: 'nginx', readTimeoutMs: 900 })).toEqual({
      status: 200,
      body: { gateway: 'nginx', readTimeoutMs: 900, buffering: true },
    })
    expect(await call('PUT', `/organisations/${created.orgId}/gateway`, { gateway: null })).toEqual(
      { status: 200, body: { gateway: 'nginx', readTimeoutMs: 900, buffering: true } },
    )
    const bad = await call('PUT', '/gateway', { gateway: 'nginx', readTimeoutMs: 3_600_001 })
    expect(bad.status).toBe(400)
    expect(bad.body.message).toMatch(/^Invalid request parameters: .*readTimeoutMs/)
    const other = await call('PUT', '/gateway', { gateway: 'haproxy', buffering: true })
    expect(other.status).toBe(400)
    expect(other.body.message).toMatch(/buffering/)
    expect(await call('PUT', '/organisations/nobody/gateway', { gateway: 'nginx' })).toEqual({
      status: 404,
      body: { code: 404, message: 'Not found' },
    })
    expect((await call('POST', '/reset')).status).toBe(204)
    expect(await call('GET', '/gateway')).toEqual({ status: 200, body: none })
  })
})
