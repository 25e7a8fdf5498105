import { describe, expect, it } from 'vitest'
import { ApiError, createMockApi, type MockApiOptions } from '../../src/root/index.ts'

const origin = 'https://api.example.test'

/** A mock and an identify through its `api.fetch`, as a consumer calls it. */
async function mockWith(options: MockApiOptions = {}) {
  const api = createMockApi({ baseUrl: origin, ...options })
  await api.ready
  const identify = async (orgId: string, key: string, id: string, data = {}) => {
    const response = await api.fetch(`${origin}/api/v1/users/identify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id, orgId, data }),
    })
    expect(response.status).toBe(200)
    return (await response.json()).data as Record<string, unknown>
  }
  return { api, identify }
}

const acme = (shapes?: string) => ({
  organisations: [{ orgId: 'acme', apiKeys: ['sk_test_acme'], ...(shapes && { shapes }) }],
})

describe('answer shapes in-process', () => {
  it('lists the covering set with api.shapes.cases(), a new copy each time', () => {
    const api = createMockApi()
    const cases = api.shapes.cases()
    expect(cases.length).toBeGreaterThan(1)
    expect(cases.length).toBeLessThanOrEqual(12)
    const [first] = cases
    if (first) first.name = 'changed'
    expect(api.shapes.cases()[0]?.name).not.toBe('changed')
  })

  it('gives the first N users a varied mock creates in an organisation all N cases, the same with the same seed', async () => {
    const turns = async (seed: number) => {
      const { api, identify } = await mockWith({ shapes: 'varied', seed })
      const [org] = api.credentials
      const n = api.shapes.cases().length
      for (let i = 0; i < n; i++) await identify(org?.orgId ?? '', org?.apiKeys[0] ?? '', `u-${i}`)
      return { taken: api.calls('identify').map((c) => c.shape), names: api.shapes.cases() }
    }
    const first = await turns(3)
    expect(new Set(first.taken)).toEqual(new Set(first.names.map((c) => c.name)))
    expect((await turns(3)).taken).toEqual(first.taken)
    const others = await Promise.all([4, 5, 6].map(async (seed) => (await turns(seed)).taken))
    expect(others.some((taken) => JSON.stringify(taken) !== JSON.stringify(first.taken))).toBe(true)
  })

  it('puts seeded users in a case by the seed and their (orgId, id), the same in every mock of that seed', async () => {
    const shapesOf = async () => {
      const { api, identify } = await mockWith({ shapes: 'varied', seed: 11 })
      const [org] = api.credentials
      const users = (await api.state()).users.filter((u) => u.orgId === org?.orgId)
      for (const user of users) await identify(user.orgId, org?.apiKeys[0] ?? '', user.id)
      return api.calls('identify').map((c) => c.shape)
    }
    const taken = await shapesOf()
    expect(taken).toEqual(await shapesOf())
    expect(new Set(taken).size).toBeGreaterThan(1)
  })

  it("answers a data file's organisation in its own case, and a reset takes a change back to it", async () => {
    const { api } = await mockWith()
    const [, absent] = api.shapes.cases()
    const named = await mockWith({ data: acme(absent?.name) })
    const data = await named.identify('acme', 'sk_test_acme', 'ada')
    expect(data.registrationStatus).toBe('unregistered')
    expect('firstName' in data).toBe(false)
    expect(named.api.calls('identify')[0]?.shape).toBe(absent?.name)

    await named.api.organisations.setShapes('acme', 'full')
    expect('firstName' in (await named.identify('acme', 'sk_test_acme', 'bob'))).toBe(true)
    await named.api.reset({ orgId: 'acme' })
    expect('firstName' in (await named.identify('acme', 'sk_test_acme', 'bob'))).toBe(false)
  })

  it('answers an organisation created with shapes in them, until a reset of the whole mock removes it', async () => {
    const { api, identify } = await mockWith()
    const [, absent] = api.shapes.cases()
    const { orgId, apiKey } = await api.organisations.create({ shapes: absent?.name })
    expect('lastName' in (await identify(orgId, apiKey, 'ada'))).toBe(false)
    await api.organisations.setShapes(orgId, 'full')
    await api.reset({ orgId })
    expect('lastName' in (await identify(orgId, apiKey, 'ada'))).toBe(false)
    const [org] = api.credentials
    expect('lastName' in (await identify(org?.orgId ?? '', org?.apiKeys[0] ?? '', 'ada'))).toBe(
      true,
    )
  })

  it('refuses an unknown organisation (404) and anything but a mode or a case (TypeError)', async () => {
    const { api } = await mockWith(acme())
    await expect(api.organisations.setShapes('nobody', 'varied')).rejects.toBeInstanceOf(ApiError)
    await expect(api.organisations.setShapes('acme', 'sideways')).rejects.toThrow(TypeError)
    await expect(api.organisations.create({ shapes: 'sideways' })).rejects.toThrow(TypeError)
    expect(() => createMockApi({ shapes: 'sideways' })).toThrow(TypeError)
  })
})
