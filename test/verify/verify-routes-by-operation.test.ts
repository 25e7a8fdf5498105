import { describe, expect, it, vi } from 'vitest'
import { planVerification } from '../../src/verify/dry-run.ts'

/**
 * `verify` reads its routes by operation. It used to take them by position
 * (`const [identifyRoute, deleteRoute] = apiRoutes`), so a row inserted above delete (here a
 * `GET` of one user) made it send its deletes as that row's method and path.
 */
vi.mock('../../src/core/routes.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/core/routes.ts')>()
  const [identify, remove] = actual.apiRoutes
  const inserted = { ...remove, method: 'GET', path: '/api/v1/users/:orgId/:id/profile' }
  return { ...actual, apiRoutes: [identify, { ...inserted, operation: 'getUser' }, remove] }
})

describe('verify with a row inserted above delete in the route table', () => {
  it('still sends its deletes as DELETE to the delete path', () => {
    const { requests } = planVerification({ baseUrl: 'http://mock.test', orgId: 'acme' })
    const deletes = requests.filter((r) => r.purpose.startsWith('delete'))
    expect(deletes).toHaveLength(4)
    for (const request of deletes) {
      expect(request.method).toBe('DELETE')
      expect(request.path).toMatch(/^\/api\/v1\/users\/[^/]+\/[^/]+$/)
    }
    expect(requests.filter((r) => r.method === 'POST')).not.toHaveLength(0)
  })
})
