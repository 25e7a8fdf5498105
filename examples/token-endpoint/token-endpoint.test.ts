import type { AddressInfo } from 'node:net'
import { createMockApi } from 'identify-api-mock'
import { setupServer } from 'msw/node'
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
import { createTokenEndpoint } from './token-endpoint.ts'

const apiBaseUrl = 'https://learning-api.example'
const api = createMockApi({
  baseUrl: apiBaseUrl,
  organisations: [{ orgId: 'acme', apiKeys: ['test-key'] }],
})
// The mock answers the API's origin only; requests to our own endpoint go through untouched.
const mswServer = setupServer(...api.handlers)
const endpoint = createTokenEndpoint({
  apiBaseUrl,
  apiKey: 'test-key',
  orgId: 'acme',
  // The mock serves the platform's web view too: the URLs the endpoint answers open there.
  webViewUrl: `${apiBaseUrl}/webview`,
})
let endpointUrl = ''

beforeAll(async () => {
  mswServer.listen({ onUnhandledFrame: 'bypass' })
  await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve))
  endpointUrl = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/web-view-url`
})
afterEach(() => api.reset())
afterAll(() => {
  mswServer.close()
  endpoint.close()
})

it('identifies the app user and answers a web-view URL with a token that signs in once', async () => {
  const res = await fetch(endpointUrl, { method: 'POST', headers: { 'x-app-user': 'app-user-7' } })
  expect(res.status).toBe(200)
  const url = new URL((await res.json()).url)
  expect(url.searchParams.get('orgId')).toBe('acme')
  const token = url.searchParams.get('token') ?? ''

  const user = (await api.state()).users.find((u) => u.id === 'app-user-7')
  expect(user).toMatchObject({ orgId: 'acme', firstName: 'Ada', registrationStatus: 'registered' })
  expect(await api.redeemToken('acme', token)).toMatchObject({ ok: true })
  expect(await api.redeemToken('acme', token)).toEqual({ ok: false, reason: 'already-used' })
})

it('asks for a new token every time the web view opens', async () => {
  const urls = await Promise.all(
    [1, 2].map(async () => {
      const res = await fetch(endpointUrl, {
        method: 'POST',
        headers: { 'x-app-user': 'app-user-8' },
      })
      return new URL((await res.json()).url).searchParams.get('token')
    }),
  )
  expect(urls[0]).not.toBe(urls[1])
})

it('answers 502 when the API fails', async () => {
  api.failNext('identify', { status: 500 })
  const res = await fetch(endpointUrl, { method: 'POST', headers: { 'x-app-user': 'app-user-9' } })
  expect(res.status).toBe(502)
  expect((await api.state()).users.some((u) => u.id === 'app-user-9')).toBe(false)
})

it("has its token refused by the web view when held past the TTL of the tenant's time, and opened at once when minted on demand", async () => {
  // Time in the test's hands: the organisation's clock stands still until the test moves it.
  await api.organisations.setClock('acme', { frozenAt: '2030-01-01T09:00:00Z' })
  const webViewUrl = async () => {
    const res = await fetch(endpointUrl, { method: 'POST', headers: { 'x-app-user': 'app-10' } })
    return (await res.json()).url as string
  }

  // A client that caches the URL and opens it 301 seconds later: the token has expired.
  const cached = await webViewUrl()
  await api.organisations.advanceClock('acme', 301_000)
  const refused = await fetch(cached)
  expect(refused.status).toBe(401)
  expect(await refused.text()).toContain('This sign-in link has expired')

  // The backend's own flow: mint when the web view opens, open it at once.
  const opened = await fetch(await webViewUrl())
  expect(opened.status).toBe(200)
  expect(await opened.text()).toContain('Ada')
})

it("met, in acme's calls, the answers the endpoint meets in production: the mock's coverage", () => {
  const met = api.coverage({ orgId: 'acme' }).items.filter((item) => item.count > 0)
  expect(met.map((item) => item.id)).toEqual([
    'identify.200.created',
    'identify.200.updated',
    'identify.500',
    'webView.redeemed',
    'webView.expired',
    'failure.identify-status-500',
  ])
})
