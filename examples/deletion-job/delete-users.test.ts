import { createMockApi } from 'identify-api-mock'
import { setupServer } from 'msw/node'
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
import { deleteUsers } from './delete-users.ts'

const apiBaseUrl = 'https://learning-api.example'
const api = createMockApi({
  baseUrl: apiBaseUrl,
  organisations: [{ orgId: 'acme', apiKeys: ['job-key'], users: 4 }],
})
const server = setupServer(...api.handlers)
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }))
afterEach(() => api.reset())
afterAll(() => server.close())

const job = (ids: string[]) =>
  deleteUsers({ apiBaseUrl, apiKey: 'job-key', orgId: 'acme', ids, backoffMs: 1 })
const acmeUsers = async () => (await api.state()).users.filter((u) => u.orgId === 'acme')

it('retries a 500 and then deletes the user', async () => {
  const [user] = await acmeUsers()
  if (!user) throw new Error('no seeded user')
  api.failNext('delete', { status: 500 })
  expect(await job([user.id])).toEqual({ [user.id]: 'deleted' })
  expect(api.requests().map((r) => r.status)).toEqual([500, 200])
  expect((await acmeUsers()).some((u) => u.id === user.id)).toBe(false)
})

it('treats 404 as already gone, without retrying', async () => {
  expect(await job(['never-existed'])).toEqual({ 'never-existed': 'already-gone' })
  expect(api.requests()).toHaveLength(1)
})

it('gives up after three server failures and keeps the user', async () => {
  const [user] = await acmeUsers()
  if (!user) throw new Error('no seeded user')
  api.failNext('delete', { status: 500, count: 3 })
  expect(await job([user.id])).toEqual({ [user.id]: 'failed' })
  expect((await acmeUsers()).some((u) => u.id === user.id)).toBe(true)
})
