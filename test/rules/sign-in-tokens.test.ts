import { describe, expect, it } from 'vitest'
import { formatInstant } from '../../src/base/time.ts'
import { MockCore } from '../../src/root/advanced.ts'
import { dispatchJson, dispatchRaw } from '../support/way-in.ts'

function setup(
  options: { tokenTtlSeconds?: number; sessionTtlSeconds?: number } = {},
  start = '2026-01-01T12:00:00Z',
) {
  let now = new Date(start)
  const api = new MockCore({
    ...options,
    now: () => now,
    organisations: [{ orgId: 'acme', apiKeys: ['acme-key'] }],
  })
  const identify = async (id: string) => {
    const res = await dispatchJson(api, 'POST', '/api/v1/users/identify', {
      key: 'acme-key',
      body: { id, orgId: 'acme' },
    })
    expect(res.status).toBe(200)
    return res.body as { token: string; data: { userId: string; lastActive: string } }
  }
  const advance = (seconds: number) => {
    now = new Date(now.getTime() + seconds * 1000)
  }
  return { api, identify, advance }
}

describe('expiry, to the millisecond', () => {
  // Issued 900 ms into a second: rounded down to the second, a one-second TTL left 100 ms.
  const start = '2026-01-01T12:00:00.900Z'

  it('stamps an instant as toISOString does, with its offset written out', () => {
    for (const ms of [0, 999, 1000, 1_767_268_800_900, -1, -1001]) {
      const date = new Date(ms)
      expect(formatInstant(date)).toBe(`${date.toISOString().slice(0, 23)}+00:00`)
    }
  })

  it('keeps a token with a one-second TTL valid 600 ms after it is issued, not at one second', async () => {
    const { api, identify, advance } = setup({ tokenTtlSeconds: 1 }, start)
    const first = await identify('quick')
    const second = await identify('quick')
    advance(0.6)
    expect((await api.redeemToken('acme', first.token)).ok).toBe(true)
    advance(0.4)
    expect(await api.redeemToken('acme', second.token)).toEqual({ ok: false, reason: 'expired' })
    const [token] = (await api.state()).signInTokens
    expect(token).toMatchObject({
      issuedAt: '2026-01-01T12:00:00.900+00:00',
      expiresAt: '2026-01-01T12:00:01.900+00:00',
    })
  })

  it('sweeps an expired token within the second after its expiry, never before it', async () => {
    const { api, identify, advance } = setup({ tokenTtlSeconds: 1 }, start)
    const { token, data } = await identify('quick') // expires at 12:00:01.900
    const held = async () =>
      (await api.state()).signInTokens.some((record) => record.userId === data.userId)
    advance(0.95) // 12:00:01.850: an identify sweeps, and the token stays
    await identify('other')
    expect(await held()).toBe(true)
    advance(0.1) // 12:00:01.950: refused from its expiry on, to the millisecond
    await identify('other')
    expect(await api.redeemToken('acme', token)).toEqual({ ok: false, reason: 'expired' })
    advance(0.1) // 12:00:02.050: swept by the next identify
    await identify('other')
    expect(await held()).toBe(false)
  })

  it('keeps a web-view session with a one-second TTL open 600 ms after it starts, not at one second', async () => {
    const { api, identify, advance } = setup({ sessionTtlSeconds: 1 }, start)
    const { token } = await identify('viewer')
    const view = (query: string, cookie?: string) =>
      dispatchRaw(api, {
        method: 'GET',
        target: `/webview?orgId=acme${query}`,
        headers: cookie ? { cookie } : {},
        body: null,
      })
    const opened = await view(`&token=${token}`)
    expect(opened.status).toBe(200)
    const cookie = opened.header('set-cookie')?.split(';')[0]
    advance(0.6)
    expect((await view('', cookie)).status).toBe(200)
    advance(0.4)
    expect((await view('', cookie)).status).toBe(401)
  })
})

describe('sign-in token redemption', () => {
  it('succeeds once, for its organisation, and sets lastActive from the clock', async () => {
    const { api, identify, advance } = setup()
    const { token, data } = await identify('learner')
    expect(data.lastActive).toBe('2026-01-01T12:00:00+00:00')
    advance(10)
    const redeemed = await api.redeemToken('acme', token)
    expect(redeemed).toMatchObject({ ok: true, user: { userId: data.userId } })
    const user = (await api.state()).users.find((u) => u.userId === data.userId)
    expect(user?.lastActive).toBe('2026-01-01T12:00:10+00:00')
    expect(await api.redeemToken('acme', token)).toEqual({ ok: false, reason: 'already-used' })
  })

  it('refuses a token after its TTL, and drops expired tokens from memory', async () => {
    const { api, identify, advance } = setup({ tokenTtlSeconds: 60 })
    const { token } = await identify('late')
    advance(59)
    const fresh = await identify('late')
    advance(1)
    expect(await api.redeemToken('acme', token)).toEqual({ ok: false, reason: 'expired' })
    expect((await api.redeemToken('acme', fresh.token)).ok).toBe(true)
    advance(120)
    await identify('someone-else')
    expect((await api.state()).signInTokens).toHaveLength(1)
  })

  it('keeps earlier tokens valid when a new one is issued', async () => {
    const { api, identify } = setup()
    const first = await identify('two-tabs')
    await identify('two-tabs')
    expect((await api.redeemToken('acme', first.token)).ok).toBe(true)
  })

  it('refuses another organisation and an unknown token', async () => {
    const { api, identify } = setup()
    const { token } = await identify('tenant')
    expect(await api.redeemToken('org-1', token)).toEqual({
      ok: false,
      reason: 'wrong-organisation',
    })
    expect(await api.redeemToken('acme', 'f'.repeat(64))).toEqual({ ok: false, reason: 'unknown' })
    expect((await api.redeemToken('acme', token)).ok).toBe(true)
  })

  it("kills a deleted user's tokens, redeemed or not", async () => {
    const { api, identify } = setup()
    const used = await identify('leaver')
    const unused = await identify('leaver')
    await api.redeemToken('acme', used.token)
    const res = await dispatchJson(api, 'DELETE', '/api/v1/users/acme/leaver', { key: 'acme-key' })
    expect(res.status).toBe(200)
    expect(await api.redeemToken('acme', unused.token)).toEqual({ ok: false, reason: 'unknown' })
    expect((await api.state()).signInTokens).toEqual([])
  })

  it('uses the generator a test passes for fixed tokens', async () => {
    let n = 0
    const api = new MockCore({
      organisations: [{ orgId: 'acme', apiKeys: ['acme-key'] }],
      generateToken: () => `fixed-${++n}`,
    })
    const res = await dispatchJson(api, 'POST', '/api/v1/users/identify', {
      key: 'acme-key',
      body: { id: 'x', orgId: 'acme' },
    })
    expect(res.body.token).toBe('fixed-1')
    expect((await api.redeemToken('acme', 'fixed-1')).ok).toBe(true)
  })
})
