import { setupServer } from 'msw/node'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createMockApi } from '../../src/root/index.ts'
import { expectDeleted, expectIdentified } from '../support/expect-body.ts'

const origin = 'http://web-view.test'
let now = new Date('2026-03-01T08:00:00Z')
const api = createMockApi({
  baseUrl: origin,
  now: () => now,
  tokenTtlSeconds: 60,
  organisations: [{ orgId: 'acme', apiKeys: ['acme-key'], users: 4 }],
  webViewMessages: { close: 'app:close', sessionRefresh: 'app:refresh' },
})
const server = setupServer(...api.handlers)
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }))
beforeEach(async () => {
  now = new Date('2026-03-01T08:00:00Z')
  await api.reset()
})
afterAll(() => server.close())

async function identify(id: string, data: Record<string, unknown> = {}, orgId = 'acme') {
  const res = await fetch(`${origin}/api/v1/users/identify`, {
    method: 'POST',
    headers: { authorization: 'Bearer acme-key', 'content-type': 'application/json' },
    body: JSON.stringify({ id, orgId, data }),
  })
  return expectIdentified(res)
}

const open = (query: Record<string, string>, cookie?: string) =>
  fetch(`${origin}/webview?${new URLSearchParams(query)}`, { headers: cookie ? { cookie } : {} })

describe('the web view', () => {
  it('redeems the token, renders the learner and sets an HttpOnly SameSite session cookie', async () => {
    const { token, data } = await identify('ada', { firstName: 'Ada', lastName: 'Lovelace' })
    now = new Date(now.getTime() + 5000)
    const res = await open({ orgId: 'acme', token, path: '/learning', webview: 'true' })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
    const html = await res.text()
    expect(html).toContain('<h2 id="learner">Ada Lovelace</h2>')
    expect(html).toContain('<span id="path">/learning</span>')
    expect(html).toContain('<button id="close" type="button">Close</button>')
    expect(html).toContain('postToApp({ type: "app:close" })')
    const cookie = res.headers.get('set-cookie') ?? ''
    expect(cookie).toMatch(
      /^identify_api_mock_session=[0-9a-f]{64}; Path=\/webview; Max-Age=3600; HttpOnly; SameSite=Lax$/,
    )

    const user = (await api.state()).users.find((u) => u.userId === data.userId)
    expect(user?.lastActive).toBe('2026-03-01T08:00:05+00:00')
    expect((await api.state()).signInTokens[0]?.redeemedAt).toBe('2026-03-01T08:00:05+00:00')

    const reload = await open({ orgId: 'acme', path: '/learning' }, cookie.split(';')[0])
    expect(reload.status).toBe(200)
    expect(await reload.text()).toContain('Ada Lovelace')
  })

  it('shows the learning path, its dates and whether it is completed', async () => {
    const state = await api.state()
    const learners = state.learningProgress.filter((p) =>
      state.users.some((u) => u.userId === p.userId && u.orgId === 'acme'),
    )
    for (const progress of learners) {
      const user = state.users.find((u) => u.userId === progress.userId)
      const path = state.learningPaths.find(
        (p) => p.orgId === 'acme' && p.learningPathId === progress.learningPathId,
      )
      if (!user || !path) throw new Error('inconsistent seed')
      const { token } = await identify(user.id)
      const html = await (await open({ orgId: 'acme', token })).text()
      expect(html).toContain(`<dd id="learning-path">${path.name}</dd>`)
      expect(html).toContain(`<dd>${progress.startDate}</dd>`)
      expect(html).toContain(`<dd>${progress.dueDate}</dd>`)
      expect(html).toContain(progress.completedAt ? 'Completed' : 'In progress')
    }
    expect(learners.length).toBe(2)
  })

  it('shows no close button without webview=true', async () => {
    const { token } = await identify('no-close')
    expect(await (await open({ orgId: 'acme', token })).text()).not.toContain('id="close"')
  })

  it('escapes what the learner typed', async () => {
    const { token } = await identify('xss', { firstName: '<script>alert(1)</script>' })
    const html = await (await open({ orgId: 'acme', token, path: '"><img src=x>' })).text()
    expect(html).not.toContain('<script>alert(1)')
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;')
    expect(html).not.toContain('"><img')
  })

  const refusals: Array<[string, (token: string) => Promise<Response>]> = [
    [
      'a reused token',
      async (token) => {
        await open({ orgId: 'acme', token })
        return open({ orgId: 'acme', token })
      },
    ],
    ['another organisation', (token) => open({ orgId: 'org-1', token })],
    ['an unknown token', () => open({ orgId: 'acme', token: 'f'.repeat(64) })],
    ['no token and no session', () => open({ orgId: 'acme' })],
    [
      'an expired token',
      (token) => {
        now = new Date(now.getTime() + 60_000)
        return open({ orgId: 'acme', token })
      },
    ],
  ]
  for (const [what, request] of refusals) {
    it(`answers ${what} with a 401 page that asks the app for a new token`, async () => {
      const { token } = await identify('refused')
      const res = await request(token)
      expect(res.status).toBe(401)
      const html = await res.text()
      expect(html).toMatch(/postToApp\(\{"type":"app:refresh","reason":"[a-z-]+"\}\)/)
      expect(res.headers.get('set-cookie')).toBeNull()
    })
  }

  it('ends the sessions of a deleted user', async () => {
    const { token } = await identify('leaver')
    const cookie = (await open({ orgId: 'acme', token })).headers.get('set-cookie')?.split(';')[0]
    const res = await fetch(`${origin}/api/v1/users/acme/leaver`, {
      method: 'DELETE',
      headers: { authorization: 'Bearer acme-key' },
    })
    await expectDeleted(res, 'leaver')
    expect((await open({ orgId: 'acme' }, cookie)).status).toBe(401)
    expect((await api.state()).webViewSessions).toEqual([])
  })

  it('keeps a session to its organisation', async () => {
    const { token } = await identify('tenant')
    const cookie = (await open({ orgId: 'acme', token })).headers.get('set-cookie')?.split(';')[0]
    expect((await open({ orgId: 'org-1' }, cookie)).status).toBe(401)
  })

  it('never journals the token', async () => {
    const { token } = await identify('journal')
    await open({ orgId: 'acme', token })
    const entries = api.requests()
    expect(entries.at(-1)).toMatchObject({ method: 'GET', path: '/webview', status: 200 })
    expect(entries.at(-1)).not.toHaveProperty('request')
    expect(JSON.stringify(entries)).not.toContain(token)
  })

  it('answers another method with a 405 page', async () => {
    const res = await fetch(`${origin}/webview`, { method: 'POST' })
    expect(res.status).toBe(405)
    expect(res.headers.get('allow')).toBe('GET, HEAD')
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
  })
})
