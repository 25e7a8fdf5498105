import { afterEach, describe, expect, it, vi } from 'vitest'
import { buildDataset } from '../../fixtures/index.ts'
import { MockCore, type StateStore } from '../../src/root/advanced.ts'
import type { MockApiOptions } from '../../src/root/index.ts'
import { dispatchJson, dispatchRaw, jsonSizeOf, stateJsonSize } from '../support/way-in.ts'

/**
 * The limits of a running mock (docs/guides/behaviour.md, "Limits of a running mock" and "Identify"): every
 * input and every stored collection has a bound, and a request refused by one changes nothing.
 */

const invalid = { code: 400, message: 'Invalid request parameters' }
let clock = new Date('2026-01-01T12:00:00Z')
const advance = (seconds: number) => {
  clock = new Date(clock.getTime() + seconds * 1000)
}
afterEach(() => {
  clock = new Date('2026-01-01T12:00:00Z')
  vi.restoreAllMocks()
})

function mock(options: MockApiOptions = {}, store?: StateStore) {
  return new MockCore(
    {
      seededOrganisations: 0,
      organisations: [{ orgId: 'acme', apiKeys: ['acme-key'], users: 0 }],
      now: () => clock,
      ...options,
    },
    store,
  )
}

function identify(core: MockCore, body: Record<string, unknown>) {
  return dispatchJson(core, 'POST', '/api/v1/users/identify', {
    key: 'acme-key',
    body: { orgId: 'acme', ...body },
  })
}

async function expectRefused(core: MockCore, body: Record<string, unknown>, expected = invalid) {
  const before = await core.state()
  const res = await identify(core, body)
  expect({ status: res.status, body: res.body }).toEqual({ status: expected.code, body: expected })
  expect(await core.state()).toEqual(before)
}

describe('identify ids', () => {
  it('refuses an id or orgId that is empty, over 1,024 characters, or holds a lone surrogate', async () => {
    const core = mock()
    for (const id of ['', 'x'.repeat(1025), 'a\ud800b', '\udc00', `${'x'.repeat(17_000)}`]) {
      await expectRefused(core, { id })
    }
    await expectRefused(core, { id: 'ok', orgId: 'acme\udfff' })
  })

  it('accepts 1,024 characters exactly, and astral characters whole', async () => {
    const core = mock()
    expect((await identify(core, { id: 'x'.repeat(1024) })).status).toBe(200)
    const astral = '😀'.repeat(512)
    expect((await identify(core, { id: astral })).status).toBe(200)
    const res = await dispatchJson(
      core,
      'DELETE',
      `/api/v1/users/acme/${encodeURIComponent(astral)}`,
      { key: 'acme-key' },
    )
    expect(res.body).toEqual({ id: astral, deleted: true })
  })
})

describe('identify data', () => {
  it('refuses a text field over 1,024 characters, and accepts 1,024', async () => {
    const core = mock()
    for (const field of ['firstName', 'lastName', 'country', 'region']) {
      await expectRefused(core, { id: 'u', data: { [field]: 'x'.repeat(1025) } })
      expect((await identify(core, { id: 'u', data: { [field]: 'x'.repeat(1024) } })).status).toBe(
        200,
      )
    }
  })

  it('refuses more than 1,000 userGroups, and a group id empty or over 256 characters', async () => {
    const core = mock()
    const groups = (n: number) => Array.from({ length: n }, (_, i) => `g-${i}`)
    await expectRefused(core, { id: 'u', data: { userGroups: groups(1001) } })
    await expectRefused(core, { id: 'u', data: { userGroups: [''] } })
    await expectRefused(core, { id: 'u', data: { userGroups: ['x'.repeat(257)] } })
    const ok = await identify(core, {
      id: 'u',
      data: { userGroups: [...groups(999), 'x'.repeat(256)] },
    })
    expect(ok.status).toBe(200)
    expect(ok.body.data.userGroups).toHaveLength(1000)
  })

  it('refuses the group bomb of the review (110,000 userGroups) and keeps nothing of it', async () => {
    const core = mock()
    // Short names, so that the body stays under the 1 MiB limit (920 KB in the review).
    const bomb = Array.from({ length: 110_000 }, (_, i) => `g${i.toString(36)}`)
    const body = { id: 'bomb', data: { userGroups: bomb } }
    expect(JSON.stringify(body).length).toBeLessThan(1024 * 1024)
    await expectRefused(core, body)
  })
})

describe('maxUserGroupsPerOrganisation', () => {
  it('answers 400 to an identify that would create more, and changes nothing', async () => {
    // acme is seeded with three groups (grp-1 to grp-3).
    const core = mock({ maxUserGroupsPerOrganisation: 8 })
    const ok = await identify(core, { id: 'a', data: { userGroups: ['g1', 'g2', 'g3'] } })
    expect(ok.status).toBe(200)
    await expectRefused(core, { id: 'b', data: { userGroups: ['g1', 'g4', 'g5', 'g6'] } })
    // Groups that exist count once: naming them again creates nothing.
    const again = await identify(core, { id: 'b', data: { userGroups: ['g1', 'g4', 'g5'] } })
    expect(again.status).toBe(200)
    expect((await core.state()).userGroups).toHaveLength(8)
  })
})

describe('maxUsers', () => {
  it('answers 500 to an identify that would create one more, says so on stderr, and changes nothing', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {})
    const core = mock({ maxUsers: 3 })
    for (const id of ['a', 'b', 'c']) expect((await identify(core, { id })).status).toBe(200)
    await expectRefused(core, { id: 'd' }, { code: 500, message: 'Internal server error' })
    expect(errors.mock.calls).toEqual([
      [expect.stringMatching(/holds 3 users, its limit .*maxUsers.*--max-users/)],
    ])
    // An existing user is still identified; a deleted one makes room.
    expect((await identify(core, { id: 'a', data: { firstName: 'Ada' } })).status).toBe(200)
    await dispatchJson(core, 'DELETE', '/api/v1/users/acme/b', { key: 'acme-key' })
    expect((await identify(core, { id: 'd' })).status).toBe(200)
  })
})

describe('maxTokensPerUser', () => {
  it("drops the user's oldest token, redeemed or not, when one more is issued", async () => {
    const core = mock({ maxTokensPerUser: 3 })
    const tokens: string[] = []
    for (let i = 0; i < 3; i++) tokens.push((await identify(core, { id: 'u' })).body.token)
    expect((await core.redeemToken('acme', tokens[0] as string)).ok).toBe(true)
    tokens.push((await identify(core, { id: 'u' })).body.token)
    tokens.push((await identify(core, { id: 'u' })).body.token)
    expect((await core.state()).signInTokens).toHaveLength(3)
    for (const dropped of tokens.slice(0, 2)) {
      expect(await core.redeemToken('acme', dropped)).toEqual({ ok: false, reason: 'unknown' })
    }
    for (const kept of tokens.slice(2)) expect((await core.redeemToken('acme', kept)).ok).toBe(true)
  })

  it('keeps 10 by default, whatever the load on one user', async () => {
    const core = mock()
    for (let i = 0; i < 50; i++) await identify(core, { id: 'busy' })
    expect((await core.state()).signInTokens).toHaveLength(10)
  })
})

describe('the token sweep', () => {
  it('drops expired tokens in expiry order, past one that lives longer (a clock stepped back)', async () => {
    const core = mock({ tokenTtlSeconds: 300 })
    await identify(core, { id: 'long' }) // expires at 12:05
    advance(-1000)
    await identify(core, { id: 'short' }) // issued at 11:43:20, expires at 11:48:20
    advance(400) // 11:50: the second has expired, the first (issued before it) has not
    await identify(core, { id: 'other' })
    const users = new Map((await core.state()).users.map((u) => [u.userId, u.id]))
    const holders = (await core.state()).signInTokens.map((t) => users.get(t.userId))
    expect(holders.sort()).toEqual(['long', 'other'])
  })
})

describe('web-view sessions', () => {
  const openWebView = (core: MockCore, query: string, cookie?: string) =>
    core.dispatch({
      method: 'GET',
      target: `/webview?orgId=acme${query}`,
      headers: new Headers(cookie ? { cookie } : {}),
      body: null,
    })
  /** Signs a new learner in: the `Set-Cookie` header of the answer. */
  async function signIn(core: MockCore): Promise<string> {
    const { token } = (await identify(core, { id: 'learner' })).body
    const res = await openWebView(core, `&token=${token}`)
    expect(res.status).toBe(200)
    return res.headers['set-cookie'] ?? ''
  }
  const reload = (core: MockCore, setCookie: string) =>
    openWebView(core, '', setCookie.split(';')[0])

  it('last sessionTtlSeconds, which the cookie carries as Max-Age, and are swept after', async () => {
    const core = mock({ sessionTtlSeconds: 60 })
    const cookie = await signIn(core)
    advance(59)
    expect((await reload(core, cookie)).status).toBe(200)
    advance(1)
    expect((await reload(core, cookie)).status).toBe(401)
    expect((await core.state()).webViewSessions).toHaveLength(1)
    await identify(core, { id: 'someone' })
    expect((await core.state()).webViewSessions).toEqual([])
  })

  it("keeps maxSessionsPerUser sessions per user: one more drops the user's oldest", async () => {
    const core = mock({ maxSessionsPerUser: 3 })
    const cookies: string[] = []
    for (let i = 0; i < 5; i++) cookies.push(await signIn(core))
    expect((await core.state()).webViewSessions).toHaveLength(3)
    for (const dropped of cookies.slice(0, 2))
      expect((await reload(core, dropped)).status).toBe(401)
    for (const kept of cookies.slice(2)) expect((await reload(core, kept)).status).toBe(200)
  })

  it('keeps 10 sessions per user by default, however often the learner signs in', async () => {
    const core = mock()
    for (let i = 0; i < 25; i++) await signIn(core)
    expect((await core.state()).webViewSessions).toHaveLength(10)
  })

  it('sets the cookie Max-Age to an hour by default', async () => {
    expect(await signIn(mock())).toMatch(/; Max-Age=3600;/)
  })

  it('sweeps the expired sessions a store (a state file) brings from before', async () => {
    const { state, credentials } = buildDataset({
      organisations: 0,
      extraOrganisations: [{ orgId: 'acme', apiKeys: ['acme-key'], users: 1 }],
    })
    const userId = state.users[0]?.userId as string
    const session = (hash: string, createdAt: string) => ({
      sessionHash: hash,
      userId,
      orgId: 'acme',
      createdAt,
    })
    state.webViewSessions.push(
      session('a'.repeat(64), '2025-06-01T00:00:00+00:00'),
      session('b'.repeat(64), '2026-01-01T11:30:00+00:00'),
    )
    const store: StateStore = { open: () => ({ state, credentials }), commit() {}, replace() {} }
    const core = mock({}, store)
    await identify(core, { id: 'next' })
    expect((await core.state()).webViewSessions.map((s) => s.sessionHash)).toEqual(['b'.repeat(64)])
  })
})

describe('maxStateBytes', () => {
  it('refuses with 500 and one line a call that would pass it, changing nothing; a delete still works', async () => {
    const warn = vi.spyOn(console, 'error').mockImplementation(() => {})
    // One token per user: a refused identify of a known user has dropped its old token to take back.
    const core = mock({ maxStateBytes: 30_000, maxTokensPerUser: 1 })
    const group = 'g'.repeat(250)
    let status = 200
    let i = 0
    for (; status === 200; i++) {
      status = (await identify(core, { id: `u-${i}`, data: { userGroups: [`${group}${i}`] } }))
        .status
    }
    expect(status).toBe(500)
    const refused = `u-${i - 1}`
    const state = await core.state()
    expect(state.users.map((u) => u.id)).not.toContain(refused)
    expect(state.userGroups.map((g) => g.groupId)).not.toContain(`${group}${i - 1}`)
    // Counted as the JSON of each record, without the state's own brackets and names.
    const size = stateJsonSize(state)
    expect(size).toBeLessThanOrEqual(30_000)
    // Full to within what the last call that fitted added (the refused one would add as much).
    const last = state.users.find((u) => u.id === `u-${i - 2}`)
    const lastCall = [
      last ?? {},
      ...state.userGroups.filter((g) => g.groupId === `${group}${i - 2}`),
      ...state.signInTokens.filter((t) => t.userId === last?.userId),
    ]
    expect(lastCall).toHaveLength(3)
    expect(size).toBeGreaterThan(30_000 - jsonSizeOf(lastCall))
    // An existing user that grows (by more than the room left) is refused too, and keeps what it had.
    const longer = { firstName: 'f'.repeat(1000), lastName: 'l'.repeat(1000) }
    expect(30_000 - size).toBeLessThan(2000)
    const grown = await identify(core, { id: 'u-0', data: longer })
    expect(grown.status).toBe(500)
    const after = await core.state()
    expect(after.users.find((u) => u.id === 'u-0')).toMatchObject({
      firstName: null,
      lastName: null,
    })
    expect(after.signInTokens.map((t) => t.tokenHash).sort()).toEqual(
      state.signInTokens.map((t) => t.tokenHash).sort(),
    )
    expect(warn).toHaveBeenLastCalledWith(
      expect.stringMatching(
        /past its limit of 30000 \(raise it with maxStateBytes or --max-state-bytes\)$/,
      ),
    )
    const deleted = await dispatchJson(core, 'DELETE', '/api/v1/users/acme/u-0', {
      key: 'acme-key',
    })
    expect(deleted.status).toBe(200)
  })

  it('counts exactly what a known user changed in place adds or takes away, escaped characters too', async () => {
    const core = mock({ maxTokensPerUser: 1 })
    const jsonSize = async () => stateJsonSize(await core.state())
    const changes = [
      {},
      { firstName: 'Ada', lastName: 'Lovelace', userGroups: ['g1'] },
      { firstName: 'Ada', lastName: 'Lovelace', userGroups: ['g1'] },
      { firstName: 'A "quoted"\\ name\n', country: 'GB' },
      { firstName: '😀\u0001\u2028', lastName: 'L', userGroups: [] },
      { firstName: 'x'.repeat(500), userGroups: ['g1', 'g2'] },
      { firstName: 'y' },
    ]
    for (const data of changes) {
      const res = await identify(core, { id: 'u-1', data })
      expect({ data, status: res.status }).toEqual({ data, status: 200 })
      expect(core.stateBytes).toBe(await jsonSize())
      advance(1)
    }
  })

  it('counts the records loaded at the start exactly once they change, leave or are refused a change', async () => {
    const core = mock({
      organisations: [{ orgId: 'acme', apiKeys: ['acme-key'], users: 4 }],
      maxTokensPerUser: 1,
    })
    await core.ready
    const jsonSize = async () => stateJsonSize(await core.state())
    const [first, second, third] = (await core.state()).users
    if (!first || !second || !third) throw new Error('four users seeded')
    expect(core.stateBytes).toBe(await jsonSize())
    // A loaded user changed twice, the second time back to a value it held.
    for (const data of [{ firstName: 'Ada "A"' }, { firstName: first.firstName ?? 'x' }]) {
      expect((await identify(core, { id: first.id, data })).status).toBe(200)
      expect(core.stateBytes).toBe(await jsonSize())
    }
    // A loaded user refused a change that would pass the limit: nothing changes, the count neither.
    const room = core.stateBytes + 200
    const tight = mock({
      organisations: [{ orgId: 'acme', apiKeys: ['acme-key'], users: 4 }],
      maxStateBytes: room,
    })
    await tight.ready
    vi.spyOn(console, 'error').mockImplementation(() => {})
    const before = tight.stateBytes
    const [loaded] = (await tight.state()).users
    const grown = await identify(tight, { id: loaded?.id, data: { lastName: 'l'.repeat(1000) } })
    expect(grown.status).toBe(500)
    expect(tight.stateBytes).toBe(before)
    expect(stateJsonSize(await tight.state())).toBe(before)
    // A loaded user deleted, with its progress and certificates, never measured before.
    const deleted = await dispatchJson(core, 'DELETE', `/api/v1/users/acme/${second.id}`, {
      key: 'acme-key',
    })
    expect(deleted.status).toBe(200)
    expect(core.stateBytes).toBe(await jsonSize())
    // A token redeemed: a loaded user changed by the web view, after a token created since.
    const { body } = await identify(core, { id: third.id })
    const { token } = body as { token: string }
    const view = await dispatchRaw(core, {
      method: 'GET',
      target: `/webview?orgId=acme&token=${token}`,
    })
    expect(view.status).toBe(200)
    expect(core.stateBytes).toBe(await jsonSize())
    // The loaded users changed since, deleted: each leaves with the size it had last.
    for (const { id } of [first, third]) {
      const gone = await dispatchJson(core, 'DELETE', `/api/v1/users/acme/${id}`, {
        key: 'acme-key',
      })
      expect(gone.status).toBe(200)
      expect(core.stateBytes).toBe(await jsonSize())
    }
  })

  it('is 256 MiB by default', () => {
    expect(mock().options.maxStateBytes).toBe(256 * 1024 * 1024)
  })
})

describe('secrets at rest', () => {
  it('keeps no part of an API key in clear', async () => {
    const core = mock({ organisations: [{ orgId: 'acme', apiKeys: ['abcd'], users: 0 }] })
    const { apiKeys } = await core.state()
    expect(apiKeys.map((k) => Object.keys(k).sort())).toEqual([['keyHash', 'orgId']])
    expect(JSON.stringify(apiKeys)).not.toContain('abcd')
  })
})
