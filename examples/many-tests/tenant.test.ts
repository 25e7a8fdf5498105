import { readFileSync } from 'node:fs'
import { connectMockApi, type Tenant } from 'identify-api-mock/client'
import { startServer } from 'identify-api-mock/server'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'

// In CI the server runs beside the tests (`npx identify-api-mock serve --data data.json`); here
// the test starts one with the same data file.
const data = JSON.parse(readFileSync(new URL('./data.json', import.meta.url), 'utf8'))
const server = await startServer({ port: 0, data })
const mockUrl = server.url
const api = connectMockApi(mockUrl)
afterAll(() => server.close())

describe('a test worker with its own tenant', () => {
  let tenant: Tenant
  beforeAll(async () => {
    tenant = await api.organisations.create({
      users: [{ id: 'archived-user', registrationStatus: 'archived' }],
    })
  })
  afterEach(() => tenant.reset())
  afterAll(() => tenant.remove())

  const identify = (id: string) =>
    fetch(`${mockUrl}/api/v1/users/identify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id, orgId: tenant.orgId }),
    })

  it('gets the user in the state it was created in', async () => {
    const { data: profile } = await (await identify('archived-user')).json()
    expect(profile.registrationStatus).toBe('archived')
  })

  it('takes its own fault, and sees only its own calls', async () => {
    await tenant.failNext('identify', { status: 500 })
    expect((await identify('ada')).status).toBe(500)
    expect((await identify('ada')).status).toBe(200)
    expect((await tenant.calls()).map((call) => call.status)).toEqual([500, 200])
  })

  it('shares the server with the data file’s organisation, untouched by its resets', async () => {
    const acme = data.organisations[0]
    const response = await fetch(`${mockUrl}/api/v1/users/identify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${acme.apiKeys[0]}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'left-the-company', orgId: acme.orgId }),
    })
    expect((await response.json()).data.registrationStatus).toBe('archived')
  })

  it('met, in its own calls only, the answers its tests put it through', async () => {
    const met = (await tenant.coverage()).items.filter((item) => item.count > 0)
    expect(met.map((item) => item.id)).toEqual([
      'identify.200.created',
      'identify.200.updated',
      'identify.500',
      'failure.identify-status-500',
    ])
  })
})
