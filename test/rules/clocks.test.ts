import { describe, expect, it } from 'vitest'
import { Database } from '../../src/model/database.ts'
import { startClocks } from '../../src/model/declared-data.ts'
import { emptyState } from '../../src/model/mock-state.ts'
import type { SignInTokenRecord } from '../../src/model/records.ts'
import { resolveOptions } from '../../src/options/mock-api-options.ts'
import { createRuleContext } from '../../src/rules/context.ts'
import { sweepExpired } from '../../src/rules/sweep.ts'

const realMs = Date.parse('2026-06-01T12:00:00Z')
const real = () => new Date(realMs)

async function contextWith(clocks: ReturnType<typeof emptyState>['clocks']) {
  const db = new Database()
  await db.load({ ...emptyState(), clocks })
  return createRuleContext(resolveOptions({ now: real }), db)
}

describe('the clocks a rule reads', () => {
  it('are the real clock while none is set', async () => {
    const ctx = await contextWith([])
    expect(ctx.now('org-1')).toEqual(real())
    expect(ctx.now(undefined)).toEqual(real())
    expect(ctx.db.clocks.modeOf('org-1')).toBe('real')
  })

  it("read an organisation's own clock, else the mock's, frozen or running on from its instant", async () => {
    const ctx = await contextWith([
      { orgId: '', mode: 'frozen', at: '2033-03-03T00:00:00.000Z', since: null },
      {
        orgId: 'runs',
        mode: 'running',
        at: '2040-01-01T00:00:00.000Z',
        since: '2026-06-01T11:59:00.000Z',
      },
      { orgId: 'still', mode: 'frozen', at: '2031-01-01T00:00:00.000Z', since: null },
    ])
    expect(ctx.now('still').toISOString()).toBe('2031-01-01T00:00:00.000Z')
    // Started a minute of real time ago.
    expect(ctx.now('runs').toISOString()).toBe('2040-01-01T00:01:00.000Z')
    expect(ctx.now('follower').toISOString()).toBe('2033-03-03T00:00:00.000Z')
    expect(ctx.now(undefined).toISOString()).toBe('2033-03-03T00:00:00.000Z')
    expect(ctx.db.clocks.modeOf('runs')).toBe('running')
    expect(ctx.db.clocks.modeOf('follower')).toBe('frozen')
  })

  it('start a declared running clock when loaded, leaving the declaration as it is', () => {
    const declared = {
      ...emptyState(),
      clocks: [
        { orgId: 'a', mode: 'running' as const, at: '2040-01-01T00:00:00.000Z', since: null },
        { orgId: 'b', mode: 'frozen' as const, at: '2031-01-01T00:00:00.000Z', since: null },
      ],
    }
    const started = startClocks(declared, real())
    expect(started.clocks).toEqual([
      { ...declared.clocks[0], since: '2026-06-01T12:00:00.000Z' },
      declared.clocks[1],
    ])
    expect(declared.clocks[0]?.since).toBeNull()
    const none = emptyState()
    expect(startClocks(none, real())).toBe(none)
  })
})

describe('the sweep of expired tokens', () => {
  it("drops an organisation's own expired tokens at its own clock, and no other's", async () => {
    const ctx = await contextWith([
      { orgId: 'past', mode: 'frozen', at: '2001-01-01T00:00:00.000Z', since: null },
    ])
    const token = (orgId: string, expiresAt: string): SignInTokenRecord => ({
      tokenHash: `${orgId}-${expiresAt}`,
      userId: `${orgId}-user`,
      orgId,
      issuedAt: '2000-06-01T00:00:00+00:00',
      expiresAt,
      redeemedAt: null,
    })
    await ctx.db.add({
      signInTokens: [
        token('past', '2000-12-31T00:00:00+00:00'),
        token('past', '2002-01-01T00:00:00+00:00'),
        token('now', '2026-01-01T00:00:00+00:00'),
        token('now', '2027-01-01T00:00:00+00:00'),
      ],
    })
    sweepExpired(ctx, 'past', ctx.now('past'))
    expect(ctx.db.signInTokens.all().map((t) => t.tokenHash)).toEqual([
      'past-2002-01-01T00:00:00+00:00',
      'now-2026-01-01T00:00:00+00:00',
      'now-2027-01-01T00:00:00+00:00',
    ])
    sweepExpired(ctx, 'now', ctx.now('now'))
    expect(ctx.db.signInTokens.all().map((t) => t.tokenHash)).toEqual([
      'past-2002-01-01T00:00:00+00:00',
      'now-2027-01-01T00:00:00+00:00',
    ])
  })
})
