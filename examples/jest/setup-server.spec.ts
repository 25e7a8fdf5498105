/** @jest-environment jest-fixed-jsdom */
import { afterAll, afterEach, beforeAll, expect, it } from '@jest/globals'
import { createMockApi } from 'identify-api-mock'
import { matchers } from 'identify-api-mock/matchers'
import { setupServer } from 'msw/node'
import { createSignInLink } from './sign-in-link.ts'

expect.extend(matchers)

const api = createMockApi({ organisations: [{ orgId: 'acme', apiKeys: ['test-key'] }] })
const server = setupServer(...api.handlers)

beforeAll(() => server.listen())
afterEach(() => api.reset())
afterAll(() => server.close())

it('signs the user in through the handlers, in jsdom', async () => {
  const config = { baseUrl: 'https://api.example.test', apiKey: 'test-key', orgId: 'acme' }
  const link = new URL(await createSignInLink(config, { id: 'user-7', firstName: 'Ada' }))
  expect(typeof window).toBe('object')
  expect(await api.redeemToken('acme', link.searchParams.get('token') ?? '')).toMatchObject({
    ok: true,
  })
  expect(api).toHaveIdentified({ id: 'user-7', data: { firstName: 'Ada' } }, { times: 1 })
  // redeemToken is the test's own check: the web view's answers count when a client opens it.
  const met = api.coverage().items.filter((item) => item.count > 0)
  expect(met.map((item) => item.id)).toEqual(['identify.200.created'])
})
