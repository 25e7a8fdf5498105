import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ClockReading, ClockSetting } from '../../src/api/clock-schemas.ts'
import type { JournalEntry } from '../../src/core/journal.ts'

/**
 * An organisation whose clock a test controls, as each way in gives it: a tenant handle
 * (in-process, `connectMockApi`) or the control endpoints called by hand over HTTP.
 */
export interface ClockTenant {
  orgId: string
  apiKey: string
  baseUrl: string
  clock(): Promise<ClockReading>
  setClock(setting: ClockSetting): Promise<ClockReading>
  advanceClock(ms: number): Promise<ClockReading>
  requests(): Promise<JournalEntry[]>
}

/** A mock behind one way in: a new tenant of it, the `fetch` that reaches its API, and its end. */
export interface ClockTransport {
  tenant(): Promise<ClockTenant>
  fetch: typeof fetch
  close(): Promise<void>
}

/** The instant the tenants' clocks stand at: a whole second, as the API's stamps are. */
export const frozenAt = '2031-03-04T05:06:07.000Z'
const frozenMs = Date.parse(frozenAt)
const tokenTtlMs = 300_000
const sessionTtlMs = 3_600_000

/**
 * What a test's time does to a tenant, through `start()`'s way in: its sign-in tokens and
 * web-view sessions expire at their TTL of its time, to the millisecond, and a frozen clock stands
 * still while real time passes.
 */
export function describeClocks(name: string, start: () => Promise<ClockTransport>) {
  describe(`clocks: ${name}`, () => {
    let mock: ClockTransport
    beforeAll(async () => {
      mock = await start()
    })
    afterAll(() => mock?.close())

    const identify = async (tenant: ClockTenant, id: string) => {
      const response = await mock.fetch(`${tenant.baseUrl}/api/v1/users/identify`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tenant.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ id, orgId: tenant.orgId }),
      })
      expect(response.status).toBe(200)
      return (await response.json()) as {
        token: string
        data: { lastActive: string; registeredAt: string }
      }
    }
    /** The web view with a token, or with a session cookie: its status and what it said. */
    const openWebView = async (
      tenant: ClockTenant,
      sign: { token: string } | { cookie: string },
    ) => {
      const query = new URLSearchParams({ orgId: tenant.orgId })
      if ('token' in sign) query.set('token', sign.token)
      const response = await mock.fetch(`${tenant.baseUrl}/webview?${query}`, {
        headers: 'cookie' in sign ? { cookie: sign.cookie } : {},
      })
      const cookie = response.headers.get('set-cookie')?.split(';')[0]
      return { status: response.status, page: await response.text(), cookie }
    }

    it("accepts a sign-in token at TTL − 1 ms of the tenant's time and refuses it as expired at TTL", async () => {
      const tenant = await mock.tenant()
      expect(await tenant.setClock({ frozenAt })).toEqual({ now: frozenAt, mode: 'frozen' })
      const early = await identify(tenant, 'early')
      const late = await identify(tenant, 'late')
      expect(await tenant.advanceClock(tokenTtlMs - 1)).toEqual({
        now: new Date(frozenMs + tokenTtlMs - 1).toISOString(),
        mode: 'frozen',
      })
      expect((await openWebView(tenant, { token: early.token })).status).toBe(200)
      await tenant.advanceClock(1)
      const refused = await openWebView(tenant, { token: late.token })
      expect(refused.status).toBe(401)
      expect(refused.page).toContain('This sign-in link has expired')
    })

    it("keeps a web-view session for its TTL of the tenant's time, to the millisecond", async () => {
      const tenant = await mock.tenant()
      await tenant.setClock({ frozenAt })
      const { token } = await identify(tenant, 'learner')
      const { status, cookie } = await openWebView(tenant, { token })
      expect(status).toBe(200)
      if (!cookie) throw new Error('the web view set no session cookie')
      await tenant.advanceClock(sessionTtlMs - 1)
      expect((await openWebView(tenant, { cookie })).status).toBe(200)
      await tenant.advanceClock(1)
      const ended = await openWebView(tenant, { cookie })
      expect(ended.status).toBe(401)
      expect(ended.page).toContain('Your session has ended')
    })

    it('stands still across real seconds while frozen: its clock, the stamps and the journal', async () => {
      const tenant = await mock.tenant()
      await tenant.setClock({ frozenAt })
      await new Promise((resolve) => setTimeout(resolve, 1100))
      expect(await tenant.clock()).toEqual({ now: frozenAt, mode: 'frozen' })
      const { data } = await identify(tenant, 'still')
      expect(data.registeredAt).toBe('2031-03-04T05:06:07+00:00')
      expect(data.lastActive).toBe('2031-03-04T05:06:07+00:00')
      const [entry] = await tenant.requests()
      expect(entry?.orgTime).toBe('2031-03-04T05:06:07+00:00')
      // The journal's own time stays real.
      expect(Math.abs(Date.parse(entry?.time ?? '') - Date.now())).toBeLessThan(60_000)
    })
  })
}
