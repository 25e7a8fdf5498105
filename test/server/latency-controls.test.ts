import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from '../../src/server/server.ts'

/** An organisation's latency over HTTP: set at creation, from a data file and at run time. */
describe('the latency controls of the standalone server', () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer({
      port: 0,
      seededOrganisations: 0,
      latency: { fixedMs: 2 },
      data: {
        organisations: [{ orgId: 'filed', apiKeys: ['filed-key'], latency: { fixedMs: 9 } }],
        users: [],
      },
    })
  })
  afterAll(() => server.close())

  const control = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await response.text()
    return { status: response.status, body: text ? JSON.parse(text) : undefined }
  }
  const identify = (apiKey: string, orgId: string) =>
    fetch(`${server.url}/api/v1/users/identify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'ada', orgId }),
    })
  const delays = async (orgId: string) =>
    (await control('GET', `/__mock/requests?orgId=${orgId}`)).body.map(
      (entry: { delayMs: number }) => entry.delayMs,
    )

  it("takes a data file's, a created organisation's and one set at run time, over the mock's", async () => {
    await identify('filed-key', 'filed')
    expect(await delays('filed')).toEqual([9])
    const created = await control('POST', '/__mock/organisations', {
      latency: { uniformMs: [5, 5] },
    })
    expect(created.status).toBe(201)
    const { orgId, apiKey } = created.body
    await identify(apiKey, orgId)
    expect(
      await control('PUT', `/__mock/organisations/${orgId}/latency`, { latency: { fixedMs: 1 } }),
    ).toEqual({
      status: 204,
      body: undefined,
    })
    await identify(apiKey, orgId)
    expect(
      await control('PUT', `/__mock/organisations/${orgId}/latency`, { latency: null }),
    ).toMatchObject({
      status: 204,
    })
    await identify(apiKey, orgId)
    expect(await delays(orgId)).toEqual([5, 1, 2])
  })

  it('refuses a latency that is none of the three (400, saying so) and an unknown organisation (404)', async () => {
    expect(
      await control('PUT', '/__mock/organisations/filed/latency', { latency: { slowMs: 5 } }),
    ).toEqual({
      status: 400,
      body: {
        code: 400,
        message:
          'Invalid request parameters: latency: expected {"fixedMs":n}, {"uniformMs":[a,b]} or {"medianMs":m,"p99Ms":p}',
      },
    })
    expect(
      await control('PUT', '/__mock/organisations/nobody/latency', { latency: { fixedMs: 1 } }),
    ).toEqual({
      status: 404,
      body: { code: 404, message: 'Not found' },
    })
  })
})
