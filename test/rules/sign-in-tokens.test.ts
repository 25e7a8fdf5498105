import { describe, expect, it } from 'vitest'
import { MockCore } from '../../src/root/advanced.ts'
import { dispatchJson } from '../support/way-in.ts'

function setup(options: { tokenTtlSeconds?: number } = {}) {
  let now = new Date('2026-01-01T12:00:00Z')
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
