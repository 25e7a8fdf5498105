import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from '../../src/server/server.ts'

/** Tenants, users put over HTTP and the controls scoped to one organisation, on one server. */

interface Tenant {
  orgId: string
  apiKey: string
}

/** A client of one server: its controls, and the API as `key` calls it. */
function clientOf(url: () => string) {
  const control = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(url() + path, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await response.text()
    return { status: response.status, body: text ? JSON.parse(text) : undefined }
  }
  const identify = async (key: string, orgId: string, id: string, data?: object) => {
    const response = await fetch(`${url()}/api/v1/users/identify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id, orgId, data }),
    })
    return { status: response.status, body: await response.json() }
  }
  const remove = async (key: string, orgId: string, id: string) =>
    (
      await fetch(`${url()}/api/v1/users/${orgId}/${id}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${key}` },
      })
    ).status
  const createTenant = async (body: unknown = {}): Promise<Tenant> => {
    const created = await control('POST', '/__mock/organisations', body)
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    return created.body
  }
  const usersOf = async (orgId: string) =>
    (await control('GET', `/__mock/state`)).body.users
      .filter((u: { orgId: string }) => u.orgId === orgId)
      .map((u: { id: string }) => u.id)
      .sort()
  return { control, identify, remove, createTenant, usersOf }
}

describe('tenants over HTTP', () => {
  let server: RunningServer
  const { control, identify, remove, createTenant, usersOf } = clientOf(() => server.url)
  const seededKey = () => server.core.credentials[0]?.apiKeys[0] ?? ''
  beforeAll(async () => {
    server = await startServer({ port: 0, maxOrganisations: 6 })
  })
  afterAll(() => server.close())
  afterEach(() => server.core.reset())

  it('creates an organisation with a random id and key, listed with its key in clear', async () => {
    const { orgId, apiKey } = await createTenant()
    expect(orgId).toMatch(/^tenant-[a-z0-9]{12}$/)
    expect(apiKey).toMatch(/^sk_test_[A-Za-z0-9]{24}$/)
    const other = await createTenant()
    expect(other.orgId).not.toBe(orgId)
    expect(other.apiKey).not.toBe(apiKey)
    expect((await identify(apiKey, orgId, 'ada')).status).toBe(200)
    expect((await identify(apiKey, 'org-1', 'ada')).status).toBe(403)
    const listed = await control('GET', '/__mock/organisations')
    expect(listed.body.organisations).toContainEqual(
      expect.objectContaining({ orgId, apiKeys: [apiKey] }),
    )
    expect(await usersOf(orgId)).toEqual(['ada'])
  })

  it('creates one with a given id, name, groups, paths and users in exact states, or fixture users', async () => {
    const exact = await createTenant({
      orgId: 'team-a',
      name: 'Team A',
      userGroups: [{ groupId: 'g1' }],
      learningPaths: [{ learningPathId: 'lp1', name: 'Safety' }],
      users: [
        { id: 'gone', registrationStatus: 'archived', userGroups: ['g1'] },
        {
          id: 'done',
          registrationStatus: 'registered',
          learningPath: {
            learningPathId: 'lp1',
            startDate: '2025-01-01',
            completedAt: '2025-02-01T00:00:00+00:00',
          },
          certificates: [{ learningPathId: 'lp1', issuedAt: '2025-02-01T00:00:00+00:00' }],
        },
      ],
    })
    expect(exact.orgId).toBe('team-a')
    const gone = await identify(exact.apiKey, 'team-a', 'gone')
    expect(gone.body.data).toMatchObject({ registrationStatus: 'archived', userGroups: ['g1'] })
    const done = await control('GET', '/__mock/user?orgId=team-a&id=done')
    expect(done.body).toMatchObject({
      progress: { name: 'Safety', percentComplete: 100 },
      certificates: [{ title: 'Certificate of completion: Safety' }],
    })
    const fixtures = await createTenant({ users: 5 })
    expect(await usersOf(fixtures.orgId)).toHaveLength(5)
    const state = (await control('GET', '/__mock/state')).body
    const userIds = state.users.map((u: { userId: string }) => u.userId)
    expect(new Set(userIds).size).toBe(userIds.length)
  })

  it('answers 409 for an id that exists, 400 for bad input and past maxOrganisations', async () => {
    expect(await control('POST', '/__mock/organisations', { orgId: 'org-1' })).toEqual({
      status: 409,
      body: { code: 409, message: 'Conflict' },
    })
    await createTenant({ orgId: 'taken' })
    expect((await control('POST', '/__mock/organisations', { orgId: 'taken' })).status).toBe(409)
    const bad = await control('POST', '/__mock/organisations', {
      users: [{ id: 'x', registrationStatus: 'gone' }],
    })
    expect(bad.status).toBe(400)
    expect(bad.body.message).toMatch(
      /^Invalid request parameters: users\[0\]\.registrationStatus: /,
    )
    const undeclared = await control('POST', '/__mock/organisations', {
      users: [{ id: 'x', registrationStatus: 'registered', userGroups: ['nope'] }],
    })
    expect(undeclared.body.message).toMatch(
      /users\[0\]\.userGroups\[0\]: the organisation declares no user group nope/,
    )
    // 2 seeded + 1 = 3 of 6: three more fit, the fourth does not.
    for (let i = 0; i < 3; i++) await createTenant()
    const past = await control('POST', '/__mock/organisations', {})
    expect(past.status).toBe(400)
    expect(past.body.message).toMatch(/^Invalid request parameters: .*maxOrganisations/)
  })

  it('removes an organisation and everything of it, 404 for an unknown one', async () => {
    const { orgId, apiKey } = await createTenant({ users: 2 })
    await identify(apiKey, orgId, 'ada')
    await control('POST', '/__mock/faults', { operation: 'identify', status: 500, orgId })
    expect((await control('DELETE', `/__mock/organisations/${orgId}`)).status).toBe(204)
    expect((await control('GET', `/__mock/requests?orgId=${orgId}`)).body).toEqual([])
    expect((await identify(apiKey, orgId, 'ada')).status).toBe(401)
    expect(await usersOf(orgId)).toEqual([])
    const state = (await control('GET', '/__mock/state')).body
    for (const [name, records] of Object.entries(state)) {
      expect(
        (records as { orgId?: string }[]).filter((r) => r.orgId === orgId),
        name,
      ).toEqual([])
    }
    expect((await control('GET', '/__mock/faults')).body).toEqual([])
    expect((await control('DELETE', `/__mock/organisations/${orgId}`)).status).toBe(404)
    const listed = (await control('GET', '/__mock/organisations')).body.organisations
    expect(listed.map((o: { orgId: string }) => o.orgId)).not.toContain(orgId)
  })

  it('puts a user in an exact state: 201 created, 200 replaced keeping its userId', async () => {
    const { orgId, apiKey } = await createTenant({ userGroups: [{ groupId: 'g' }] })
    const path = `/__mock/organisations/${orgId}/users/ada`
    const created = await control('PUT', path, {
      registrationStatus: 'unregistered',
      firstName: 'Ada',
      userGroups: ['g'],
    })
    expect(created.status).toBe(201)
    expect(created.body).toEqual((await control('GET', `/__mock/user?orgId=${orgId}&id=ada`)).body)
    expect(created.body.profile).toMatchObject({
      registrationStatus: 'unregistered',
      firstName: 'Ada',
      lastName: null,
      registeredAt: null,
      userGroups: ['g'],
    })
    const replaced = await control('PUT', path, { registrationStatus: 'archived' })
    expect(replaced.status).toBe(200)
    expect(replaced.body.profile).toMatchObject({
      userId: created.body.profile.userId,
      registrationStatus: 'archived',
      firstName: null,
    })
    expect((await identify(apiKey, orgId, 'ada')).body.data.registrationStatus).toBe('archived')
    const given = await control('PUT', path, {
      registrationStatus: 'archived',
      userId: 'my-own-id',
    })
    expect(given.body.profile.userId).toBe('my-own-id')
  })

  it('refuses a put user for an unknown organisation (404) and bad bodies (400 naming the path)', async () => {
    const { orgId } = await createTenant()
    const path = `/__mock/organisations/${orgId}/users/ada`
    expect(
      await control('PUT', '/__mock/organisations/nobody/users/ada', {
        registrationStatus: 'archived',
      }),
    ).toEqual({
      status: 404,
      body: { code: 404, message: 'Not found' },
    })
    const status = await control('PUT', path, { registrationStatus: 'gone' })
    expect(status.status).toBe(400)
    expect(status.body.message).toMatch(/^Invalid request parameters: registrationStatus: /)
    for (const extra of [{ orgId }, { id: 'ada' }]) {
      const refused = await control('PUT', path, { registrationStatus: 'archived', ...extra })
      expect(refused.status).toBe(400)
    }
    const group = await control('PUT', path, {
      registrationStatus: 'archived',
      userGroups: ['nope'],
    })
    expect(group.body.message).toMatch(
      /userGroups\[0\]: the organisation declares no user group nope/,
    )
    const taken = server.core.credentials[0]?.orgId ?? ''
    const someone = (await control('GET', `/__mock/users?orgId=${taken}`)).body.users[0]
    const described = (await control('GET', `/__mock/user?orgId=${taken}&id=${someone.id}`)).body
    const stolen = await control('PUT', path, {
      registrationStatus: 'archived',
      userId: described.profile.userId,
    })
    expect(stolen.body.message).toMatch(/userId: another user has this userId/)
    expect(await usersOf(orgId)).toEqual([])
  })

  it('resets one organisation to where it started, leaving every other as it is', async () => {
    const tenant = await createTenant({ users: [{ id: 'kept', registrationStatus: 'archived' }] })
    const seeded = server.core.credentials[0]?.orgId ?? ''
    const seededUsers = await usersOf(seeded)
    // Change both organisations, and queue a fault and journal a call for each.
    await identify(tenant.apiKey, tenant.orgId, 'new')
    await control('PUT', `/__mock/organisations/${tenant.orgId}/users/kept`, {
      registrationStatus: 'registered',
    })
    await identify(seededKey(), seeded, 'new-in-seeded')
    expect(await remove(seededKey(), seeded, seededUsers[0])).toBe(200)
    await control('POST', '/__mock/faults', {
      operation: 'delete',
      status: 500,
      orgId: tenant.orgId,
    })
    await control('POST', '/__mock/faults', { operation: 'delete', status: 500, orgId: seeded })

    expect((await control('POST', '/__mock/reset', { orgId: tenant.orgId })).status).toBe(204)
    expect(await usersOf(tenant.orgId)).toEqual(['kept'])
    expect((await identify(tenant.apiKey, tenant.orgId, 'kept')).body.data.registrationStatus).toBe(
      'archived',
    )
    expect(await usersOf(seeded)).toEqual([...seededUsers.slice(1), 'new-in-seeded'].sort())
    expect((await control('GET', '/__mock/faults')).body).toEqual([
      expect.objectContaining({ orgId: seeded }),
    ])
    const tenantCalls = (await control('GET', `/__mock/requests?orgId=${tenant.orgId}`)).body
    expect(tenantCalls.map((c: { request: { id: string } }) => c.request.id)).toEqual(['kept'])
    expect((await control('GET', `/__mock/requests?orgId=${seeded}`)).body).toHaveLength(2)

    expect((await control('POST', '/__mock/reset', { orgId: seeded })).status).toBe(204)
    expect(await usersOf(seeded)).toEqual(seededUsers)
    expect((await control('GET', '/__mock/faults')).body).toEqual([])
    expect((await control('POST', '/__mock/reset', { orgId: 'nobody' })).status).toBe(404)
    expect((await control('POST', '/__mock/reset', { orgId: 7 })).status).toBe(400)
    expect(await usersOf(tenant.orgId)).toEqual(['kept'])

    expect((await control('POST', '/__mock/reset', {})).status).toBe(204)
    expect(await usersOf(tenant.orgId)).toEqual([])
    expect((await identify(tenant.apiKey, tenant.orgId, 'kept')).status).toBe(401)
  })

  it('gives a scoped fault only to calls for its organisation and user, in the order queued', async () => {
    const a = await createTenant()
    const b = await createTenant()
    await control('POST', '/__mock/faults', { operation: 'identify', status: 500, orgId: b.orgId })
    await control('POST', '/__mock/faults', {
      operation: 'identify',
      status: 403,
      orgId: a.orgId,
      id: 'u2',
    })
    await control('POST', '/__mock/faults', { operation: 'identify', status: 400 })
    expect((await identify(a.apiKey, a.orgId, 'u1')).status).toBe(400)
    expect((await identify(a.apiKey, a.orgId, 'u1')).status).toBe(200)
    expect((await identify(a.apiKey, a.orgId, 'u2')).status).toBe(403)
    expect((await identify(b.apiKey, b.orgId, 'u1')).status).toBe(500)
    expect((await identify(b.apiKey, b.orgId, 'u1')).status).toBe(200)
    await control('POST', '/__mock/faults', {
      operation: 'delete',
      status: 404,
      orgId: a.orgId,
      id: 'u1',
      count: 2,
    })
    expect((await control('GET', '/__mock/faults')).body).toEqual([
      { operation: 'delete', status: 404, remaining: 2, delayMs: 0, orgId: a.orgId, id: 'u1' },
    ])
    expect(await remove(b.apiKey, b.orgId, 'u1')).toBe(200)
    expect(await remove(a.apiKey, a.orgId, 'u1')).toBe(404)
    const idAlone = await control('POST', '/__mock/faults', {
      operation: 'delete',
      status: 500,
      id: 'u1',
    })
    expect(idAlone.status).toBe(400)
    expect(idAlone.body.message).toMatch(/id: a fault for one user id needs its orgId too/)
    expect(
      await control('POST', '/__mock/faults', {
        operation: 'delete',
        status: 500,
        orgId: 'nobody',
      }),
    ).toEqual({
      status: 404,
      body: { code: 404, message: 'Not found' },
    })
  })

  it("lists and drops one organisation's queued faults, leaving the others' and the unscoped ones", async () => {
    const a = await createTenant()
    const b = await createTenant()
    for (const orgId of [a.orgId, b.orgId, undefined]) {
      await control('POST', '/__mock/faults', { operation: 'identify', status: 500, orgId })
    }
    const listed = await control('GET', `/__mock/faults?orgId=${a.orgId}`)
    expect(listed.body).toEqual([
      { operation: 'identify', status: 500, remaining: 1, delayMs: 0, orgId: a.orgId },
    ])
    expect(await control('DELETE', `/__mock/faults?orgId=${a.orgId}`)).toEqual({
      status: 204,
      body: undefined,
    })
    const left = (await control('GET', '/__mock/faults')).body
    expect(left.map((fault: { orgId?: string }) => fault.orgId)).toEqual([b.orgId, undefined])
    expect((await control('DELETE', '/__mock/faults?orgId=nobody')).status).toBe(404)
    expect((await control('GET', '/__mock/faults?limit=1')).status).toBe(400)
    expect((await control('DELETE', '/__mock/faults')).status).toBe(204)
    expect((await control('GET', '/__mock/faults')).body).toEqual([])
  })

  it('redeems a sign-in token as the web view does, and refuses a body that is not one', async () => {
    const a = await createTenant()
    const b = await createTenant()
    const { token } = (await identify(a.apiKey, a.orgId, 'ada')).body
    const redeem = (orgId: string, body: unknown) =>
      control('POST', `/__mock/organisations/${orgId}/tokens/redeem`, body)
    expect(await redeem(b.orgId, { token })).toEqual({
      status: 200,
      body: { ok: false, reason: 'wrong-organisation' },
    })
    const first = await redeem(a.orgId, { token })
    expect(first).toMatchObject({
      status: 200,
      body: { ok: true, user: { orgId: a.orgId, id: 'ada' } },
    })
    expect((await redeem(a.orgId, { token })).body).toEqual({ ok: false, reason: 'already-used' })
    const wrong = await redeem(a.orgId, { token: 5 })
    expect(wrong.status).toBe(400)
    expect(wrong.body.message).toMatch(/^Invalid request parameters: token: /)
    expect((await redeem(a.orgId, { token, extra: 1 })).status).toBe(400)
    expect((await redeem(a.orgId, { token: 'x'.repeat(1025) })).status).toBe(400)
  })

  it('lists the calls of one organisation: API calls and web views, never control calls', async () => {
    const a = await createTenant()
    const b = await createTenant()
    const { body } = await identify(a.apiKey, a.orgId, 'u1')
    await identify(b.apiKey, b.orgId, 'u1')
    await fetch(`${server.url}/webview?orgId=${a.orgId}&token=${body.token}&webview=true`)
    await remove(a.apiKey, a.orgId, 'u1')
    await control('GET', `/__mock/user?orgId=${a.orgId}&id=u1`)
    const ofA = (await control('GET', `/__mock/requests?orgId=${a.orgId}`)).body
    expect(ofA.map((e: { method: string; path: string }) => `${e.method} ${e.path}`)).toEqual([
      'POST /api/v1/users/identify',
      'GET /webview',
      `DELETE /api/v1/users/${a.orgId}/u1`,
    ])
    expect(JSON.stringify(ofA)).not.toContain(body.token)
    const all = (await control('GET', '/__mock/requests')).body
    expect(all).toHaveLength(4)
    expect(all.some((e: { path: string }) => e.path.startsWith('/__mock'))).toBe(false)
    expect((await control('GET', '/__mock/requests?orgId=&limit=1')).status).toBe(400)
  })
})

describe('tenants kept by --state-file', () => {
  it('come back after a restart, and a scoped reset still returns them to their start', async () => {
    const stateFile = join(mkdtempSync(join(tmpdir(), 'tenants-')), 'state')
    let server = await startServer({ port: 0, stateFile })
    const { control, identify, usersOf } = clientOf(() => server.url)
    const created = await control('POST', '/__mock/organisations', {
      orgId: 'kept',
      users: [{ id: 'ada', registrationStatus: 'archived' }],
    })
    const { apiKey } = created.body
    await control('PUT', '/__mock/organisations/kept/users/bob', {
      registrationStatus: 'registered',
    })
    await server.close()
    server = await startServer({ port: 0, stateFile })
    try {
      expect(await usersOf('kept')).toEqual(['ada', 'bob'])
      expect((await identify(apiKey, 'kept', 'ada')).body.data.registrationStatus).toBe('archived')
      expect((await control('POST', '/__mock/reset', { orgId: 'kept' })).status).toBe(204)
      expect(await usersOf('kept')).toEqual(['ada'])
      expect((await identify(apiKey, 'kept', 'ada')).status).toBe(200)
    } finally {
      await server.close()
    }
  })
})

describe('the tenant controls behind the control rules', () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer({ port: 0, controlToken: 'let-me-in' })
  })
  afterAll(() => server.close())

  it('refuse another site, a missing token and a body that is not JSON, creating nothing', async () => {
    const post = (headers: Record<string, string>, body = '{}') =>
      fetch(`${server.url}/__mock/organisations`, { method: 'POST', headers, body })
    const json = { 'content-type': 'application/json' }
    const token = { authorization: 'Bearer let-me-in' }
    expect((await post({ ...json, ...token, origin: 'http://evil.test' })).status).toBe(403)
    expect((await post({ ...json, ...token, 'sec-fetch-site': 'cross-site' })).status).toBe(403)
    expect((await post(json)).status).toBe(401)
    expect((await post({ ...token, 'content-type': 'text/plain' })).status).toBe(400)
    expect(server.core.credentials).toHaveLength(2)
    const put = await fetch(`${server.url}/__mock/organisations/org-1/users/x`, {
      method: 'PUT',
      headers: json,
      body: '{"registrationStatus":"archived"}',
    })
    expect(put.status).toBe(401)
    expect((await post({ ...json, ...token })).status).toBe(201)
  })
})
