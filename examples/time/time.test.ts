import { createMockApi } from 'identify-api-mock'
import { HttpResponse, http } from 'msw'
import { setupServer } from 'msw/node'
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'

const api = createMockApi()
const receiverUrl = 'https://backend.test/webhooks'
let statuses: number[] = []
const server = setupServer(
  ...api.handlers,
  http.post(receiverUrl, () => new HttpResponse(null, { status: statuses.shift() ?? 200 })),
)
beforeAll(() => server.listen())
afterEach(() => api.reset()) // every clock back to the real one, the tenants gone
afterAll(() => server.close())

/** A tenant whose clock stands still at 09:00, with one user, `ada`. */
async function frozenTenant() {
  return api.organisations.create({
    clock: { frozenAt: '2030-01-01T09:00:00Z' },
    users: [{ id: 'ada', registrationStatus: 'registered', firstName: 'Ada' }],
  })
}

type Tenant = Awaited<ReturnType<typeof frozenTenant>>

async function signInToken(tenant: Tenant): Promise<string> {
  const res = await fetch(`${tenant.baseUrl}/api/v1/users/identify`, {
    method: 'POST',
    headers: { authorization: `Bearer ${tenant.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id: 'ada', orgId: tenant.orgId }),
  })
  return (await res.json()).token
}

const webView = (tenant: Tenant, token: string) =>
  fetch(`${tenant.baseUrl}/webview?orgId=${tenant.orgId}&token=${token}`)

it('refuses a cached sign-in token after 301 s of test time', async () => {
  const tenant = await frozenTenant()
  const cached = await signInToken(tenant)
  await tenant.advanceClock(301_000)
  const page = await webView(tenant, cached)
  expect(page.status).toBe(401)
  expect(await page.text()).toContain('This sign-in link has expired')
})

it('ends a web-view session after its hour', async () => {
  const tenant = await frozenTenant()
  const opened = await webView(tenant, await signInToken(tenant))
  const cookie = opened.headers.get('set-cookie')?.split(';')[0] ?? ''
  const reload = () =>
    fetch(`${tenant.baseUrl}/webview?orgId=${tenant.orgId}`, { headers: { cookie } })
  await tenant.advanceClock(3_599_999)
  expect((await reload()).status).toBe(200)
  await tenant.advanceClock(1)
  expect((await reload()).status).toBe(401)
})

it('shows the 5-hour webhook retry at once', async () => {
  const tenant = await frozenTenant()
  api.webhooks.add({ url: receiverUrl })
  statuses = [500, 500, 500, 500, 500]
  await api.events.raise({ type: 'notifications.sent', orgId: tenant.orgId, id: 'ada' })
  // Retries after 5 s, 5 min, 30 min, 2 h and 5 h: each made before the advance answers.
  await tenant.advanceClock(5_000 + 300_000 + 1_800_000 + 7_200_000 + 18_000_000)
  const [delivery] = api.webhooks.deliveries()
  expect(delivery?.attempts.map((attempt) => attempt.status)).toEqual([
    500, 500, 500, 500, 500, 200,
  ])
  expect(delivery?.attempts.at(-1)?.at).toBe('2030-01-01T16:35:05.000Z')
})

it("met the answers only a clock in the test's hands reaches: the mock's coverage", () => {
  const met = api.coverage().items.filter((item) => item.count > 0)
  expect(met.map((item) => item.id)).toEqual([
    'identify.200.updated',
    'webView.redeemed',
    'webView.expired',
    'webhook.event.notifications.sent',
    'webhook.delivery.after-retries',
  ])
})
