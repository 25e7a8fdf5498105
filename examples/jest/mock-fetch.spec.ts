import { expect, it } from '@jest/globals'
import { createMockApi } from 'identify-api-mock'
import { matchers } from 'identify-api-mock/matchers'
import { createSignInLink } from './sign-in-link.ts'

expect.extend(matchers)

it('signs the user in through api.fetch, with no msw server', async () => {
  const api = createMockApi({ organisations: [{ orgId: 'acme', apiKeys: ['test-key'] }] })
  const config = {
    baseUrl: 'https://api.example.test',
    apiKey: 'test-key',
    orgId: 'acme',
    fetch: api.fetch,
  }
  const link = await createSignInLink(config, { id: 'user-8', firstName: 'Grace' })
  expect(link).toMatch(/^https:\/\/api\.example\.test\/webview\?orgId=acme&token=[0-9a-f]{64}$/)
  expect(api).toHaveIdentified({ id: 'user-8' }, { status: 200, times: 1 })
  expect(api).not.toHaveDeleted()
  const met = api.coverage().items.filter((item) => item.count > 0)
  expect(met.map((item) => item.id)).toEqual(['identify.200.created'])
  expect(() => expect(api).toHaveDeleted({ id: 'user-8' })).toThrow(
    'expected the mock to have deleted {"id":"user-8"}, but 0 calls matched.\n\nNo delete calls were made.',
  )
})
