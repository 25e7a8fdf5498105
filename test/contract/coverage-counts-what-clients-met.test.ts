import { HttpResponse, http } from 'msw'
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectMockApi } from '../../src/client/connect-mock-api.ts'
import { createMockApi } from '../../src/root/index.ts'
import { startServer } from '../../src/server/server.ts'

/**
 * What a suite's clients met of the answer space: a suite that meets a known set of answers sees
 * exactly that set met, with how many times, and nothing more; each tenant its own; over the whole
 * run (resets and removals keep the counts, a clear starts afresh), whatever the journal kept.
 */

type Report = Awaited<ReturnType<ReturnType<typeof createMockApi>['coverage']>>

/** The ids met in `report`, with their counts. */
const metOf = (report: Report) =>
  Object.fromEntries(report.items.filter((item) => item.count > 0).map((i) => [i.id, i.count]))

/** A surface of the mock a suite drives: in-process, or a server through its client. */
interface Driven {
  baseUrl: string
  send: typeof fetch
  api: ReturnType<typeof createMockApi> | ReturnType<typeof connectMockApi>
}

/**
 * Meets a known set of answers through `driven`, with two tenants made at once: A meets a created
 * and an updated identify, a 404 delete, a forced 500 and two openings of one sign-in token; B a
 * delete, an identify in one answer-shape case and a delete whose answer a reset lost after it took
 * effect. A call with a wrong key is met by none of them.
 */
async function meetKnownAnswers({ baseUrl, send, api }: Driven) {
  const [a, b] = await Promise.all([
    api.organisations.create(),
    api.organisations.create({
      users: [
        { id: 'bo', registrationStatus: 'registered' },
        { id: 'cy', registrationStatus: 'registered' },
      ],
    }),
  ])
  const call = (apiKey: string, method: string, path: string, body?: unknown) =>
    send(`${baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${apiKey}`,
        ...(body !== undefined && { 'content-type': 'application/json' }),
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    })
  const identify = (tenant: typeof a, id: string) =>
    call(tenant.apiKey, 'POST', '/api/v1/users/identify', { id, orgId: tenant.orgId })
  const [{ cases }] = [{ cases: await api.shapes.cases() }]
  const shape = cases[1]?.name as string
  await b.setShapes(shape as never)
  const created = await identify(a, 'ada')
  const { token } = (await created.json()) as { token: string }
  await Promise.all([
    identify(a, 'ada'),
    call(a.apiKey, 'DELETE', `/api/v1/users/${a.orgId}/nobody`),
    call(b.apiKey, 'DELETE', `/api/v1/users/${b.orgId}/bo`),
    identify(b, 'new-in-b'),
    call('not-a-key', 'POST', '/api/v1/users/identify', { id: 'x', orgId: a.orgId }),
  ])
  await a.failNext('identify', { status: 500 })
  await identify(a, 'ada')
  await b.failNext('delete-reset-applied')
  await expect(call(b.apiKey, 'DELETE', `/api/v1/users/${b.orgId}/cy`)).rejects.toThrow(TypeError)
  const open = () => send(`${baseUrl}/webview?orgId=${a.orgId}&token=${token}`)
  await open()
  await open()
  return { a, b, shape }
}

async function expectExactlyMet(driven: Driven) {
  const { api } = driven
  const { a, b, shape } = await meetKnownAnswers(driven)
  expect(metOf(await a.coverage())).toEqual({
    'identify.200.created': 1,
    'identify.200.updated': 1,
    'identify.500': 1,
    'failure.identify-status-500': 1,
    'delete.404': 1,
    'webView.redeemed': 1,
    'webView.already-used': 1,
  })
  // The delete a reset lost met the reset, not the 200 its call gave the mock.
  expect(metOf(await b.coverage())).toEqual({
    'identify.200.created': 1,
    [`shape.${shape}`]: 1,
    'delete.200': 1,
    'failure.delete-reset-applied': 1,
  })
  // The whole mock: both, and the call its key did not authenticate, owned by none.
  const whole = await api.coverage()
  expect(metOf(whole)).toEqual({
    'identify.200.created': 2,
    'identify.200.updated': 1,
    'identify.500': 1,
    'identify.401': 1,
    [`shape.${shape}`]: 1,
    'delete.200': 1,
    'delete.404': 1,
    'webView.redeemed': 1,
    'webView.already-used': 1,
    'failure.identify-status-500': 1,
    'failure.delete-reset-applied': 1,
  })
  expect(whole.met).toBe(11)
  expect(whole.groups.find((g) => g.group === 'identify')).toEqual({
    group: 'identify',
    total: 6,
    met: 4,
  })
  // Resets and removals keep the run's counts; a removed tenant's stay in the whole mock's.
  await a.reset()
  expect(metOf(await a.coverage())).toHaveProperty('identify.200.created', 1)
  await b.remove()
  expect(metOf(await api.coverage())).toHaveProperty('delete.200', 1)
  await expect(b.coverage()).rejects.toMatchObject({ status: 404 })
  await api.reset()
  expect((await api.coverage()).met).toBe(11)
  // An explicit clear starts afresh.
  await api.coverage.clear()
  expect((await api.coverage()).met).toBe(0)
}

describe('coverage: what the clients met', () => {
  const msw = setupServer()
  beforeAll(() => msw.listen({ onUnhandledFrame: 'bypass' }))
  afterAll(() => msw.close())

  it('is exactly the answers given through api.fetch, and nothing more', async () => {
    const api = createMockApi()
    await expectExactlyMet({ baseUrl: 'https://api.example.test', send: api.fetch, api })
  })

  it('is exactly the answers given through the MSW handlers', async () => {
    const api = createMockApi({ baseUrl: 'https://coverage.example.test' })
    msw.use(...api.handlers)
    await expectExactlyMet({ baseUrl: 'https://coverage.example.test', send: fetch, api })
  })

  it('is exactly the answers given over HTTP, read through connectMockApi', async () => {
    const server = await startServer({ port: 0 })
    try {
      msw.close()
      await expectExactlyMet({ baseUrl: server.url, send: fetch, api: connectMockApi(server.url) })
    } finally {
      msw.listen({ onUnhandledFrame: 'bypass' })
      await server.close()
    }
  })

  it('counts the calls the journal no longer holds', async () => {
    const api = createMockApi({ journalSize: 2 })
    const tenant = await api.organisations.create()
    for (let i = 0; i < 5; i++) {
      await api.fetch('https://api.example.test/api/v1/users/identify', {
        method: 'POST',
        headers: { authorization: `Bearer ${tenant.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ id: `u-${i}`, orgId: tenant.orgId }),
      })
    }
    expect(await tenant.calls()).toHaveLength(2)
    expect(metOf(await tenant.coverage())).toEqual({ 'identify.200.created': 5 })
  })

  it('counts each webhook delivery when it ends, for the event’s organisation', async () => {
    const api = createMockApi({ webhookRetrySchedule: [10] })
    const tenant = await api.organisations.create({
      users: [{ id: 'ada', registrationStatus: 'registered' }],
    })
    let failures = 1
    msw.use(
      http.post('https://receiver.coverage.test/hooks', () =>
        HttpResponse.json({}, { status: failures-- > 0 ? 500 : 200 }),
      ),
      http.post('https://receiver.coverage.test/down', () =>
        HttpResponse.json({}, { status: 503 }),
      ),
    )
    api.webhooks.add({
      url: 'https://receiver.coverage.test/hooks',
      events: ['user.course.started'],
    })
    api.webhooks.add({ url: 'https://receiver.coverage.test/down', events: ['custom.event'] })
    const raise = () =>
      api.events.raise({ type: 'user.course.started', orgId: tenant.orgId, id: 'ada' })
    await raise()
    await api.webhooks.settled()
    await raise()
    await api.events.raise({ type: 'custom.event', data: {} })
    await api.webhooks.settled()
    expect(metOf(await tenant.coverage())).toEqual({
      'webhook.delivery.after-retries': 1,
      'webhook.delivery.first-attempt': 1,
      'webhook.event.user.course.started': 2,
    })
    // A custom event names no organisation: the whole mock's alone.
    expect(metOf(await api.coverage())).toHaveProperty('webhook.delivery.given-up', 1)
  })
})
