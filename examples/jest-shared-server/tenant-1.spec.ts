import { expect, it } from '@jest/globals'
import { useTenant } from 'identify-api-mock/jest-server'
import { matchers } from 'identify-api-mock/matchers'

expect.extend(matchers)

// An organisation of this file's own on the run's one server, reset after each test.
const tenant = useTenant({ users: [{ id: 'archived-user', registrationStatus: 'archived' }] })

const identify = (id: string) =>
  fetch(`${tenant.baseUrl}/api/v1/users/identify`, {
    method: 'POST',
    headers: { authorization: `Bearer ${tenant.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id, orgId: tenant.orgId }),
  })

it('takes its own fault, and sees only its own calls', async () => {
  await tenant.failNext('identify', { status: 500 })
  expect((await identify('ada')).status).toBe(500)
  expect((await identify('archived-user')).status).toBe(200)
  await expect(tenant).toHaveIdentified({ id: 'ada' }, { times: 1 })
})

it('starts each test from the tenant as it was created', async () => {
  expect(await tenant.calls()).toEqual([])
})
