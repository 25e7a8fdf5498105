import { describe, expect, it } from 'vitest'
import { matchers } from '../../src/matchers/matchers.ts'
import { ApiError, createMockApi, type MockApi } from '../../src/root/index.ts'

expect.extend(matchers)

const identify = (api: MockApi, apiKey: string, orgId: string, id: string) =>
  api.fetch('https://api.test/api/v1/users/identify', {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id, orgId }),
  })

describe('tenants in-process', () => {
  it('creates and removes organisations, with the errors of the control endpoint', async () => {
    const api = createMockApi({ maxOrganisations: 3 })
    const { orgId, apiKey } = await api.organisations.create({ name: 'Mine' })
    expect(orgId).toMatch(/^tenant-[a-z0-9]{12}$/)
    expect(apiKey).toMatch(/^sk_test_[A-Za-z0-9]{24}$/)
    expect(api.credentials).toContainEqual({ orgId, name: 'Mine', apiKeys: [apiKey] })
    expect((await identify(api, apiKey, orgId, 'ada')).status).toBe(200)
    await expect(api.organisations.create({ orgId })).rejects.toMatchObject({
      constructor: ApiError,
      status: 409,
      message: 'Conflict',
    })
    await expect(api.organisations.create()).rejects.toThrow(TypeError)
    await expect(api.organisations.create()).rejects.toThrow(/maxOrganisations/)
    await expect(api.organisations.create({ users: -1 })).rejects.toThrow(TypeError)
    await api.organisations.remove(orgId)
    expect((await identify(api, apiKey, orgId, 'ada')).status).toBe(401)
    await expect(api.organisations.remove(orgId)).rejects.toMatchObject({ status: 404 })
    expect(api.credentials.map((c) => c.orgId)).toEqual(['org-1', 'org-2'])
  })

  it('puts users, resets one organisation, and scopes faults, calls and matchers to it', async () => {
    const api = createMockApi()
    const a = await api.organisations.create()
    const b = await api.organisations.create()
    const put = await api.organisations.putUser(a.orgId, 'ada', { registrationStatus: 'archived' })
    expect(put).toEqual({ created: true })
    expect(api.db.users.findFirst((q) => q.where({ orgId: a.orgId, id: 'ada' }))).toMatchObject({
      registrationStatus: 'archived',
      firstName: null,
    })
    const again = await api.organisations.putUser(a.orgId, 'ada', {
      registrationStatus: 'archived',
    })
    expect(again).toEqual({ created: false })
    api.failNext('identify', { status: 500, orgId: b.orgId })
    expect((await identify(api, a.apiKey, a.orgId, 'ada')).status).toBe(200)
    expect((await identify(api, b.apiKey, b.orgId, 'bob')).status).toBe(500)
    expect(() => api.failNext('identify', { status: 500, id: 'x' })).toThrow(TypeError)
    expect(() => api.failNext('identify', { status: 500, orgId: 'nobody' })).toThrow(ApiError)

    expect(api.calls('identify', { orgId: a.orgId })).toEqual([
      expect.objectContaining({ request: { id: 'ada', orgId: a.orgId }, status: 200 }),
    ])
    expect(api.requests({ orgId: b.orgId })).toHaveLength(1)
    expect(api).toHaveIdentified({ id: 'ada' }, { orgId: a.orgId, times: 1 })
    expect(api).not.toHaveIdentified({ id: 'ada' }, { orgId: b.orgId })
    expect(() => expect(api).toHaveIdentified({}, { orgId: b.orgId, status: 200 })).toThrow(
      /for tenant-/,
    )

    await api.reset({ orgId: a.orgId })
    expect(api.db.users.findMany((q) => q.where({ orgId: a.orgId }))).toEqual([])
    expect(api.calls(undefined, { orgId: a.orgId })).toEqual([])
    expect(api.calls(undefined, { orgId: b.orgId })).toHaveLength(1)
    await expect(api.reset({ orgId: 'nobody' })).rejects.toMatchObject({ status: 404 })

    await api.reset()
    expect(api.credentials.map((c) => c.orgId)).toEqual(['org-1', 'org-2'])
    expect(api.requests()).toEqual([])
  })

  it('clears only the reset organisation’s webhook deliveries', async () => {
    const api = createMockApi({ webhookRetrySchedule: [60_000] })
    api.webhooks.add({ url: 'http://127.0.0.1:9/unreachable' })
    const a = await api.organisations.create({
      users: [{ id: 'u', registrationStatus: 'registered' }],
    })
    const b = await api.organisations.create({
      users: [{ id: 'u', registrationStatus: 'registered' }],
    })
    await api.events.raise({ type: 'user.course.started', orgId: a.orgId, id: 'u', courseId: 'c' })
    await api.events.raise({ type: 'user.course.started', orgId: b.orgId, id: 'u', courseId: 'c' })
    expect(api.webhooks.deliveries()).toHaveLength(2)
    await api.reset({ orgId: a.orgId })
    expect(api.webhooks.deliveries()).toHaveLength(1)
    await api.organisations.remove(b.orgId)
    expect(api.webhooks.deliveries()).toEqual([])
    api.webhooks.cancel()
  })
})
