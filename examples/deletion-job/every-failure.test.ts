import { createMockApi } from 'identify-api-mock'
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { deleteUsers } from './delete-users.ts'

const apiBaseUrl = 'https://learning-api.example'
const api = createMockApi({ baseUrl: apiBaseUrl })
const server = setupServer(...api.handlers)
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }))
afterAll(() => server.close())

/** Where the API's own answer is final, the job reports it; every other case ends deleted. */
const reported: Record<string, string> = {
  'delete-status-403': 'failed',
  'delete-status-404': 'already-gone',
}

const deleteCases = api.failures.cases().filter((c) => c.operation === 'delete')

describe.each(deleteCases)('when a delete meets $name', ({ name }) => {
  it('reports what happened to the user, as the state has it', async () => {
    const tenant = await api.organisations.create({
      users: [{ id: 'ada', registrationStatus: 'registered' }],
    })
    await tenant.failNext(name)
    const { apiKey, orgId } = tenant
    const outcomes = await deleteUsers({
      apiBaseUrl,
      apiKey,
      orgId,
      ids: ['ada'],
      backoffMs: 1,
      timeoutMs: 1000,
    })
    const outcome = reported[name] ?? 'deleted'
    expect(outcomes).toEqual({ ada: outcome })
    const stored = (await api.state()).users.some((u) => u.orgId === orgId && u.id === 'ada')
    expect(stored).toBe(outcome !== 'deleted')
  })
})

it("met every failure case of delete, as the mock's coverage counts them", () => {
  const met = api.coverage().items.filter((item) => item.group === 'failures' && item.count > 0)
  expect(met.map((item) => item.id)).toEqual(deleteCases.map(({ name }) => `failure.${name}`))
})
