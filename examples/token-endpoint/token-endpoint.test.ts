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
  webViewUrl: 'https://learning.example/webview',
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
