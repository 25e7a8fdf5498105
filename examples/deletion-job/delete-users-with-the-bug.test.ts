import { createMockApi, type FailureCaseName } from 'identify-api-mock'
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { deleteUsersWithTheBug } from './delete-users.ts'

const apiBaseUrl = 'https://learning-api.example'
const api = createMockApi({ baseUrl: apiBaseUrl })
const server = setupServer(...api.handlers)
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }))
afterAll(() => server.close())

const deleteCases = api.failures.cases().filter((c) => c.operation === 'delete')

/** Runs the job with the bug once under case `name`: what it reports, and whether the user is stored. */
async function runUnder(name: FailureCaseName) {
  const tenant = await api.organisations.create({
    users: [{ id: 'ada', registrationStatus: 'registered' }],
  })
  await tenant.failNext(name)
  const { apiKey, orgId } = tenant
  const outcomes = await deleteUsersWithTheBug({
    apiBaseUrl,
    apiKey,
    orgId,
    ids: ['ada'],
    backoffMs: 1,
    timeoutMs: 1000,
  })
  const stored = (await api.state()).users.some((u) => u.orgId === orgId && u.id === 'ada')
  return { outcome: outcomes.ada, stored }
}

it("passes under every fault of the error table that changes nothing (today's faults)", async () => {
  const today = deleteCases.filter((c) => c.kind === 'status' && !c.applied)
  expect(today.map((c) => c.name)).toEqual([
    'delete-status-403',
    'delete-status-404',
    'delete-status-500',
  ])
  expect(await runUnder('delete-status-403')).toEqual({ outcome: 'failed', stored: true })
  expect(await runUnder('delete-status-404')).toEqual({ outcome: 'already-gone', stored: true })
  expect(await runUnder('delete-status-500')).toEqual({ outcome: 'deleted', stored: false })
})

it('is wrong exactly when the delete was applied before its answer was lost: it reports a failure', async () => {
  /** What the fixed job reports (see every-failure.test.ts). */
  const reported: Record<string, string> = {
    'delete-status-403': 'failed',
    'delete-status-404': 'already-gone',
  }
  const wrong: string[] = []
  for (const { name } of deleteCases) {
    const { outcome, stored } = await runUnder(name)
    if (outcome !== (reported[name] ?? 'deleted')) {
      expect({ name, outcome, stored }).toEqual({ name, outcome: 'failed', stored: false })
      wrong.push(name)
    }
  }
  expect(wrong).toEqual(deleteCases.filter((c) => c.applied).map((c) => c.name))
}, 60_000)
