import { failureCases, useTenant } from 'identify-api-mock/vitest-server'
import { expect, it } from 'vitest'

const tenant = useTenant({ users: [{ id: 'ada', registrationStatus: 'archived' }] })
// The failures of identify that answer a status: a documented error or a gateway's.
const statusCases = failureCases.filter(
  (c) => c.operation === 'identify' && (c.kind === 'status' || c.kind === 'gateway'),
)

it.each(statusCases)('answers $name with its status', async ({ name, status }) => {
  await tenant.failNext(name)
  const answer = await fetch(`${tenant.baseUrl}/api/v1/users/identify`, {
    method: 'POST',
    headers: { authorization: `Bearer ${tenant.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id: 'ada', orgId: tenant.orgId }),
  })
  expect(answer.status).toBe(status)
})
