import { useTenant } from 'identify-api-mock/vitest-server'
import { expect, it } from 'vitest'

const tenant = useTenant({ users: [{ id: 'leaver', registrationStatus: 'registered' }] })

const remove = (id: string) =>
  fetch(`${tenant.baseUrl}/api/v1/users/${tenant.orgId}/${id}`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${tenant.apiKey}` },
  })

it('deletes its user once', async () => {
  expect((await remove('leaver')).status).toBe(200)
  expect((await remove('leaver')).status).toBe(404)
  await expect(tenant).toHaveDeleted({ id: 'leaver' }, { times: 2 })
})

it('finds its user back after the reset that follows each test', async () => {
  await tenant.failNext('delete', { status: 500, id: 'leaver' })
  expect((await remove('leaver')).status).toBe(500)
  expect((await remove('leaver')).status).toBe(200)
})
