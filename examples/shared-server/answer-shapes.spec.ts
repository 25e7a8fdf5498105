import { shapeCases, useTenant } from 'identify-api-mock/vitest-server'
import { describe, expect, it } from 'vitest'

// A tenant per case of the covering set, created in that case: each test's reset keeps it.
describe.each(shapeCases)('answer shape $name', ({ name }) => {
  const tenant = useTenant({ shapes: name, users: [{ id: 'ada', registrationStatus: 'archived' }] })

  const identify = () =>
    fetch(`${tenant.baseUrl}/api/v1/users/identify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'ada', orgId: tenant.orgId }),
    })

  it('answers in its case', async () => {
    expect((await identify()).status).toBe(200)
    expect((await tenant.calls('identify')).at(-1)?.shape).toBe(name)
  })

  it('is still in its case after the reset', async () => {
    expect(await tenant.calls()).toEqual([])
    await identify()
    expect((await tenant.calls('identify')).at(-1)?.shape).toBe(name)
  })
})
