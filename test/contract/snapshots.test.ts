import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { DataFile } from '../../src/api/data-file.ts'
import { connectMockApi } from '../../src/client/connect-mock-api.ts'
import type { MockState } from '../../src/model/database.ts'
import { organisationSlice } from '../../src/model/declared-data.ts'
import { createMockApi, type Tenant } from '../../src/root/index.ts'
import { type RunningServer, startServer } from '../../src/server/server.ts'
import { controlCall } from '../support/control-call.ts'

/**
 * Named snapshots of a tenant and forks from them, in-process and over HTTP through the same
 * tenant handle: saved, changed by a test, restored equal (records, settings, what its tokens
 * redeem to); a fork equal with keys of its own, diverging on its own; the bounds, the names, the
 * 404s and the 409; and over HTTP, the wire and what a tenant's key cannot reach.
 */

vi.setConfig({ testTimeout: 120_000, hookTimeout: 60_000 })

interface Way {
  tenant(input?: { users?: number }): Promise<Tenant>
  state(): Promise<MockState>
  fetch: typeof fetch
}

/** The records of `orgId` the state holds, without its snapshots (they are not part of one). */
const recordsOf = async (way: Way, orgId: string) => {
  const { organisationSnapshots: _, ...records } = organisationSlice(await way.state(), orgId)
  return records
}

let server: RunningServer
beforeAll(async () => {
  server = await startServer({ port: 0 })
})
afterAll(() => server?.close())

const ways: [string, () => Way][] = [
  [
    'in-process',
    () => {
      const api = createMockApi()
      return {
        tenant: (input) => api.organisations.create(input),
        state: api.state,
        fetch: api.fetch,
      }
    },
  ],
  [
    'over HTTP (connectMockApi)',
    () => {
      const client = connectMockApi(server.url)
      return { tenant: (input) => client.organisations.create(input), state: client.state, fetch }
    },
  ],
]

describe.each(ways)('snapshots, %s', (_name, open) => {
  const identify = (way: Way, tenant: Tenant, id: string) =>
    way.fetch(`${tenant.baseUrl}/api/v1/users/identify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id, orgId: tenant.orgId }),
    })
  const tokenOf = async (way: Way, tenant: Tenant, id: string) => {
    const response = await identify(way, tenant, id)
    expect(response.status).toBe(200)
    return ((await response.json()) as { token: string }).token
  }

  it('restores a tenant of 1,000 users, tokens, a frozen clock, a shape, two faults, chaos and an endpoint as saved', async () => {
    const way = open()
    const tenant = await way.tenant({ users: 1000 })
    await tenant.setClock({ frozenAt: '2030-06-01T12:00:00Z' })
    const [, shape] = (await createMockApi().shapes.cases()).map((c) => c.name)
    await tenant.setShapes(shape ?? 'varied')
    const ids = ['ada', 'grace', 'hedy']
    const tokens = []
    for (const id of ids) tokens.push(await tokenOf(way, tenant, id))
    expect(await tenant.redeemToken(tokens[0] ?? '')).toMatchObject({ ok: true })
    await tenant.failNext('identify', { status: 500 })
    await tenant.failNext('delete-reset-applied', { id: 'ada', count: 2 })
    await tenant.setChaos({ rate: 0.5, cases: ['delete-status-403'], seed: 9, calls: 100 })
    const endpoint = await tenant.webhooks.add({
      url: 'http://127.0.0.1:9/snapshot-receiver',
      events: ['notifications.sent'],
    })
    const records = await recordsOf(way, tenant.orgId)
    expect(records.users).toHaveLength(1003)
    expect(records.signInTokens).toHaveLength(3)
    const faults = await tenant.queuedFaults()
    expect(faults).toHaveLength(2)
    const clock = await tenant.clock()
    const chaos = await tenant.chaos()
    const endpointsOf = async () =>
      (await tenant.webhooks.list()).map(({ url, events, orgId }) => ({ url, events, orgId }))
    const endpoints = await endpointsOf()
    expect(endpoints).toEqual([
      { url: endpoint.url, events: ['notifications.sent'], orgId: tenant.orgId },
    ])

    const saved = await tenant.saveSnapshot('base')
    expect(saved).toEqual({
      name: 'base',
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      users: 1003,
      bytes: expect.any(Number),
    })
    expect(saved.bytes).toBeGreaterThan(JSON.stringify(records.users).length)
    // The snapshot keeps the endpoint's secret sealed: never in clear in the state.
    expect(JSON.stringify(await way.state())).not.toContain(endpoint.secret.slice('whsec_'.length))

    // A test changes everything the snapshot holds.
    expect(await tenant.redeemToken(tokens[1] ?? '')).toMatchObject({ ok: true })
    await tenant.deleteUser('hedy')
    await tenant.putUser('newcomer', { registrationStatus: 'archived' })
    await tokenOf(way, tenant, 'extra').catch(() => undefined)
    await tenant.clearFaults()
    await tenant.failNext('delete', { status: 404 })
    await tenant.setShapes('full')
    await tenant.setLatency({ fixedMs: 1 })
    await tenant.advanceClock(3_600_000)
    await tenant.clearChaos()
    await tenant.webhooks.remove(endpoint.id)
    await tenant.webhooks.add({ url: 'http://127.0.0.1:9/another-receiver' })
    expect(await recordsOf(way, tenant.orgId)).not.toEqual(records)

    await tenant.restoreSnapshot('base')
    expect(await recordsOf(way, tenant.orgId)).toEqual(records)
    expect(await tenant.queuedFaults()).toEqual(faults)
    expect(await tenant.clock()).toEqual(clock)
    expect(await tenant.chaos()).toEqual(chaos)
    expect(await endpointsOf()).toEqual(endpoints)
    // Its secret is the one saved (shown in-process; over HTTP a list never shows one).
    const [restored] = await tenant.webhooks.list()
    if (restored && 'secret' in restored) expect(restored.secret).toBe(endpoint.secret)
    expect(await tenant.calls()).toEqual([])
    // Each token redeems as it would have at the save: the first was used, the others not.
    const outcomes = []
    for (const token of tokens) outcomes.push(await tenant.redeemToken(token ?? ''))
    expect(outcomes.map((outcome) => (outcome.ok ? 'ok' : outcome.reason))).toEqual([
      'already-used',
      'ok',
      'ok',
    ])
    // The queued faults answer again as they would have: the identify fault first.
    expect((await identify(way, tenant, 'ada')).status).toBe(500)
    // A reset of the tenant keeps its snapshots, and a restore after it works the same.
    await tenant.reset()
    expect(await tenant.snapshots()).toEqual([saved])
    await tenant.restoreSnapshot('base')
    expect(await recordsOf(way, tenant.orgId)).toEqual(records)
    await tenant.remove()
  })

  it('forks a tenant: equal at the start, with an id and keys of its own, then each on its own', async () => {
    const way = open()
    const tenant = await way.tenant({ users: 5 })
    await tenant.putUser('ada', { registrationStatus: 'archived', firstName: 'Ada' })
    await tenant.setClock({ frozenAt: '2031-01-01T00:00:00Z' })
    await tenant.failNext('identify', { status: 500 })
    const token = await tokenOf(way, tenant, 'grace').catch(() => '')
    await tenant.clearFaults()
    await tenant.failNext('delete', { status: 500, id: 'ada' })
    await tenant.setChaos({ rate: 0.25, cases: ['delete-status-403'], seed: 4 })
    await tenant.webhooks.add({ url: 'http://127.0.0.1:9/fork-receiver' })
    await tenant.saveSnapshot('forked')
    const fork = await tenant.fork('forked', { name: 'The fork' })
    expect(await fork.chaos()).toEqual(await tenant.chaos())
    expect((await fork.webhooks.list()).map(({ url, orgId }) => ({ url, orgId }))).toEqual([
      { url: 'http://127.0.0.1:9/fork-receiver', orgId: fork.orgId },
    ])

    expect(fork.orgId).not.toBe(tenant.orgId)
    expect(fork.apiKey).not.toBe(tenant.apiKey)
    const strip = (state: Omit<MockState, 'organisationSnapshots'>) =>
      [...state.users]
        .map(({ userId: _, orgId: __, ...user }) => user)
        .sort((a, b) => a.id.localeCompare(b.id))
    const source = await recordsOf(way, tenant.orgId)
    const forked = await recordsOf(way, fork.orgId)
    expect(strip(forked)).toEqual(strip(source))
    expect(forked.organisations).toEqual([{ orgId: fork.orgId, name: 'The fork' }])
    // Every userId its own: a userId is unique in the mock.
    const sourceIds = new Set(source.users.map((u) => u.userId))
    expect(forked.users.some((u) => sourceIds.has(u.userId))).toBe(false)
    // The source's tokens are the source's: a fork holds none.
    expect(forked.signInTokens).toEqual([])
    expect(await fork.redeemToken(token)).toMatchObject({ ok: false })
    expect(await fork.clock()).toEqual(await tenant.clock())
    expect(await fork.queuedFaults()).toEqual([
      { operation: 'delete', status: 500, remaining: 1, delayMs: 0, orgId: fork.orgId, id: 'ada' },
    ])
    // Its own key reaches it; the source's key is not its.
    expect((await identify(way, fork, 'ada')).status).toBe(200)
    const foreign = await identify(way, { ...fork, apiKey: tenant.apiKey }, 'ada')
    expect(foreign.status).toBe(403)

    // Each diverges on its own.
    await fork.deleteUser('ada').catch(() => undefined)
    await tenant.putUser('only-in-source', { registrationStatus: 'registered' })
    await fork.advanceClock(60_000)
    expect((await tenant.getUser('ada')).profile.firstName).toBe('Ada')
    await expect(fork.getUser('only-in-source')).rejects.toMatchObject({ status: 404 })
    expect(await tenant.clock()).toEqual({ now: '2031-01-01T00:00:00.000Z', mode: 'frozen' })
    // A reset of the fork brings it back to the snapshot's state.
    await fork.reset()
    expect(strip(await recordsOf(way, fork.orgId))).toEqual(strip(source))
    await Promise.all([fork.remove(), tenant.remove()])
  })

  it('answers 404 for an unknown organisation or name, 409 for a name taken, and refuses bad names', async () => {
    const way = open()
    const tenant = await way.tenant()
    await tenant.saveSnapshot('taken')
    await expect(tenant.saveSnapshot('taken')).rejects.toMatchObject({ message: 'Conflict' })
    for (const missing of [
      tenant.restoreSnapshot('nowhere'),
      tenant.dropSnapshot('nowhere'),
      tenant.fork('nowhere'),
    ]) {
      await expect(missing).rejects.toMatchObject({ message: 'Not found' })
    }
    for (const name of ['', 'a b', 'x'.repeat(65), 'naïve', 'a/b']) {
      await expect(tenant.saveSnapshot(name), JSON.stringify(name)).rejects.toThrow(
        /snapshot name is 1 to 64 characters/,
      )
    }
    expect((await tenant.saveSnapshot('x'.repeat(64))).name).toHaveLength(64)
    expect((await tenant.saveSnapshot('A-z_0.9')).name).toBe('A-z_0.9')
    await tenant.remove()
    await expect(tenant.snapshots()).rejects.toMatchObject({ message: 'Not found' })
    await expect(tenant.saveSnapshot('late')).rejects.toMatchObject({ message: 'Not found' })
  })

  it('keeps at most 16 snapshots per organisation', async () => {
    const way = open()
    const tenant = await way.tenant()
    for (let i = 0; i < 16; i++) await tenant.saveSnapshot(`s${i}`)
    await expect(tenant.saveSnapshot('s16')).rejects.toThrow(/16 snapshots, their limit/)
    await tenant.dropSnapshot('s3')
    await tenant.saveSnapshot('s16')
    expect((await tenant.snapshots()).map((s) => s.name)).not.toContain('s3')
    await tenant.remove()
  })
})

describe('snapshots and the state budget', () => {
  it('counts each snapshot in maxStateBytes: one past it is refused with 400, naming the bound', async () => {
    const api = createMockApi({ seededOrganisations: 0, maxStateBytes: 60_000 })
    const tenant = await api.organisations.create({ users: 20 })
    const size = async () => JSON.stringify(await api.state()).length
    const before = await size()
    const { bytes } = await tenant.saveSnapshot('first')
    expect((await size()) - before).toBeGreaterThanOrEqual(bytes)
    let refused: unknown
    for (let i = 0; i < 16 && !refused; i++) {
      refused = await tenant.saveSnapshot(`more-${i}`).then(
        () => undefined,
        (error: unknown) => error,
      )
    }
    expect(refused).toBeInstanceOf(TypeError)
    expect((refused as Error).message).toMatch(
      /past its limit of 60000 \(maxStateBytes, --max-state-bytes\)/,
    )
    // Dropping one gives its bytes back.
    await tenant.dropSnapshot('first')
    expect((await tenant.saveSnapshot('again')).bytes).toBe(bytes)
  })
})

describe('a restore the state budget refuses', () => {
  it('changes nothing of its records and queued faults', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined)
    const api = createMockApi({ seededOrganisations: 0, maxStateBytes: 60_000 })
    const tenant = await api.organisations.create({ users: 20 })
    await tenant.saveSnapshot('twenty')
    const { users } = await tenant.listUsers({ limit: 100 })
    for (const user of users.slice(5)) await tenant.deleteUser(user.id)
    await tenant.failNext('delete', { status: 500 })
    // The budget filled with snapshots of the five left, until one more is refused.
    for (let i = 0; i < 15; i++) {
      const saved = await tenant.saveSnapshot(`five-${i}`).then(
        () => true,
        () => false,
      )
      if (!saved) break
    }
    // Records taken back come back in another order: compared as sets.
    const records = async () =>
      Object.values(organisationSlice(await api.state(), tenant.orgId))
        .flatMap((list) => list.map((record) => JSON.stringify(record)))
        .sort()
    const before = await records()
    const faults = await tenant.queuedFaults()
    await expect(tenant.restoreSnapshot('twenty')).rejects.toMatchObject({ status: 500 })
    expect(await records()).toEqual(before)
    expect(await tenant.queuedFaults()).toEqual(faults)
  })
})

describe('snapshots over HTTP', () => {
  it('answers the wire: 201 with the summary, the list, 204s, 404 and 409 bodies, a fork by from', async () => {
    const { orgId } = (await controlCall(server.url, 'POST', '/organisations', { users: 2 })).body
    const at = `/organisations/${orgId}/snapshots`
    const saved = await controlCall(server.url, 'POST', at, { name: 'wire' })
    expect(saved.status).toBe(201)
    expect(Object.keys(saved.body)).toEqual(['name', 'createdAt', 'users', 'bytes'])
    expect(await controlCall(server.url, 'GET', at)).toEqual({ status: 200, body: [saved.body] })
    expect(await controlCall(server.url, 'POST', at, { name: 'wire' })).toEqual({
      status: 409,
      body: { code: 409, message: 'Conflict' },
    })
    const bad = await controlCall(server.url, 'POST', at, { name: 'no spaces' })
    expect(bad.status).toBe(400)
    expect(bad.body.message).toMatch(/snapshot name/)
    const notFound = { status: 404, body: { code: 404, message: 'Not found' } }
    expect(await controlCall(server.url, 'POST', `${at}/nowhere/restore`)).toEqual(notFound)
    expect(await controlCall(server.url, 'DELETE', `${at}/nowhere`)).toEqual(notFound)
    expect(await controlCall(server.url, 'GET', '/organisations/nowhere/snapshots')).toEqual(
      notFound,
    )
    expect((await controlCall(server.url, 'POST', `${at}/wire/restore`)).status).toBe(204)
    const fork = await controlCall(server.url, 'POST', '/organisations', {
      from: { orgId, snapshot: 'wire' },
    })
    expect(fork.status).toBe(201)
    expect(Object.keys(fork.body)).toEqual(['orgId', 'apiKey'])
    const mixed = await controlCall(server.url, 'POST', '/organisations', {
      from: { orgId, snapshot: 'wire' },
      users: 3,
    })
    expect(mixed.status).toBe(400)
    expect(mixed.body.message).toMatch(/users: a fork takes its state from the snapshot/)
    expect((await controlCall(server.url, 'DELETE', `${at}/wire`)).status).toBe(204)
    expect((await controlCall(server.url, 'GET', at)).body).toEqual([])
  })

  it('lets no API key read, restore or fork a snapshot: the control token guards them', async () => {
    const guarded = await startServer({ port: 0, controlToken: 'control-secret' })
    try {
      const token = { authorization: 'Bearer control-secret' }
      const create = () => controlCall(guarded.url, 'POST', '/organisations', {}, token)
      const [a, b] = [(await create()).body, (await create()).body]
      const at = `/organisations/${b.orgId}/snapshots`
      expect((await controlCall(guarded.url, 'POST', at, { name: 'b' }, token)).status).toBe(201)
      const withKey = { authorization: `Bearer ${a.apiKey}` }
      const tries = [
        await controlCall(guarded.url, 'GET', at, undefined, withKey),
        await controlCall(guarded.url, 'POST', `${at}/b/restore`, undefined, withKey),
        await controlCall(guarded.url, 'POST', at, { name: 'a' }, withKey),
        await controlCall(
          guarded.url,
          'POST',
          '/organisations',
          { from: { orgId: b.orgId, snapshot: 'b' } },
          withKey,
        ),
      ]
      expect(tries.map((t) => t.status)).toEqual([401, 401, 401, 401])
      expect((await controlCall(guarded.url, 'GET', at, undefined, token)).body).toHaveLength(1)
      // A tenant handle names its own organisation: A's fork of B's snapshot name finds none.
      const client = connectMockApi(guarded.url, { controlToken: 'control-secret' })
      const handleA = await client.organisations.create()
      await expect(handleA.fork('b')).rejects.toMatchObject({ status: 404 })
      await expect(handleA.restoreSnapshot('b')).rejects.toMatchObject({ status: 404 })
    } finally {
      await guarded.close()
    }
  })
})

describe('snapshots a data file declares', () => {
  const data: DataFile = {
    organisations: [
      {
        orgId: 'acme',
        apiKeys: ['sk_test_acme_snapshots'],
        userGroups: [{ groupId: 'grp-1', name: 'One' }],
        snapshots: {
          'two-archived': {
            users: [
              { id: 'ada', registrationStatus: 'archived', userGroups: ['grp-1'] },
              { id: 'grace', registrationStatus: 'unregistered' },
            ],
            clock: { frozenAt: '2030-01-01T00:00:00Z' },
            shapes: 'varied',
          },
          empty: {},
        },
      },
    ],
  }

  it('starts every organisation with them: a restore puts the declared users and settings in place, a fork starts from them', async () => {
    const api = createMockApi({ seededOrganisations: 0, data })
    expect((await api.organisations.snapshots('acme')).map((s) => [s.name, s.users])).toEqual([
      ['two-archived', 2],
      ['empty', 0],
    ])
    await api.organisations.putUser('acme', 'someone', { registrationStatus: 'registered' })
    await api.organisations.restoreSnapshot('acme', 'two-archived')
    const { users } = await api.organisations.listUsers('acme')
    expect(users.map((user) => user.id).sort()).toEqual(['ada', 'grace'])
    expect((await api.organisations.getUser('acme', 'ada')).profile).toMatchObject({
      registrationStatus: 'archived',
      userGroups: ['grp-1'],
    })
    expect(await api.organisations.clock('acme')).toEqual({
      now: '2030-01-01T00:00:00.000Z',
      mode: 'frozen',
    })
    const fork = await api.organisations.create({ from: { orgId: 'acme', snapshot: 'empty' } })
    expect((await fork.listUsers()).users).toEqual([])
    // A reset of the whole mock keeps what the file declares.
    await api.organisations.dropSnapshot('acme', 'empty')
    await api.reset()
    expect(await api.organisations.snapshots('acme')).toHaveLength(2)
  })

  it('refuses a bad name, more than 16, and a user naming a group its organisation lacks', () => {
    const [org] = data.organisations ?? []
    // Refused at run time: the type allows any key, as a file read from disk does.
    const withSnapshots = (snapshots: Record<string, unknown>) =>
      ({ organisations: [{ ...org, snapshots }] }) as DataFile
    expect(() => createMockApi({ data: withSnapshots({ 'a b': {} }) })).toThrow(
      /snapshot name is 1 to 64 characters/,
    )
    const many = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`s${i}`, {}]))
    expect(() => createMockApi({ data: withSnapshots(many) })).toThrow(
      /at most 16 snapshots per organisation/,
    )
    const stray = { users: [{ id: 'x', registrationStatus: 'archived', userGroups: ['grp-9'] }] }
    expect(() => createMockApi({ data: withSnapshots({ stray }) })).toThrow(
      /organisations\[0\]\.snapshots\.stray\.users\[0\]\.userGroups/,
    )
  })
})
