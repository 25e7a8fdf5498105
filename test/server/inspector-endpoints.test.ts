import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { hashSecret } from '../../src/base/secrets.ts'
import { handleControl } from '../../src/control/control.ts'
import { inspectorContentSecurityPolicy } from '../../src/inspector/assets.ts'
import { type RunningServer, startServer } from '../../src/server/server.ts'
import { expectError, expectIdentified } from '../support/expect-body.ts'

/** The inspector's files and the bounded data endpoints it reads, over HTTP. */

const pageFiles = [
  ['/__mock/', 'text/html; charset=utf-8'],
  ['/__mock/inspector.css', 'text/css; charset=utf-8'],
  ['/__mock/inspector.js', 'text/javascript; charset=utf-8'],
] as const

const dataPaths = [
  '/__mock/organisations',
  '/__mock/users?orgId=org-1',
  '/__mock/user?orgId=org-1&id=x',
  '/__mock/faults',
]

describe('the inspector on a default server', () => {
  let server: RunningServer
  let key = ''
  beforeAll(async () => {
    server = await startServer({ port: 0, usersPerOrganisation: 230 })
    key = server.core.credentials[0]?.apiKeys[0] ?? ''
  })
  afterAll(() => server.close())

  const get = (path: string) => fetch(server.url + path)
  const identify = (id: string, firstName = 'Ada') =>
    fetch(`${server.url}/api/v1/users/identify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id, orgId: 'org-1', data: { firstName } }),
    })

  it('redirects /__mock to the page, served with a strict policy and no inline script or style', async () => {
    const redirect = await fetch(`${server.url}/__mock`, { redirect: 'manual' })
    expect(redirect.status).toBe(308)
    expect(redirect.headers.get('location')).toBe('/__mock/')
    for (const [path, type] of pageFiles) {
      const res = await get(path)
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toBe(type)
      expect(res.headers.get('content-security-policy')).toBe(inspectorContentSecurityPolicy)
      expect(res.headers.get('x-content-type-options')).toBe('nosniff')
      expect(res.headers.get('referrer-policy')).toBe('no-referrer')
    }
    expect(inspectorContentSecurityPolicy).toContain("default-src 'none'")
    expect(inspectorContentSecurityPolicy).toContain("script-src 'self'")
    expect(inspectorContentSecurityPolicy).not.toContain('unsafe')
    const html = await (await get('/__mock/')).text()
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)|<style|\sstyle=|\son[a-z]+=/i)
    expect(html).not.toMatch(/https?:\/\//)
    expect(html).not.toContain(key)
  })

  it('lists the organisations with their keys and a curl line for this server', async () => {
    const res = await get('/__mock/organisations')
    const { organisations, total } = await res.json()
    expect(total).toBe(2)
    expect(organisations[0]).toEqual({
      orgId: 'org-1',
      name: expect.any(String),
      apiKeys: [key],
      shapes: 'full',
      curl: expect.stringContaining(`${server.url}/api/v1/users/identify`),
    })
    expect(organisations[0].curl).toContain(`Bearer ${key}`)
    // Past the server's Host rule, a Host that is no plain name never reaches the shell line.
    const odd = await handleControl(server.core, {
      method: 'GET',
      target: '/__mock/organisations',
      headers: new Headers({ host: "localhost';touch x;'" }),
      body: null,
    })
    const curls = JSON.parse(odd.body).organisations.map((o: { curl: unknown }) => o.curl)
    expect(curls).toEqual([null, null])
  })

  it('pages and searches one organisation’s users, newest first, at most 100 a page', async () => {
    await expectIdentified(await identify('newest-user', 'Zebedee'))
    const page = async (query: string) => (await get(`/__mock/users?${query}`)).json()
    const first = await page('orgId=org-1')
    expect(first.total).toBe(231)
    expect(first.users).toHaveLength(25)
    expect(first.users[0]).toEqual({
      id: 'newest-user',
      userId: expect.any(String),
      name: 'Zebedee',
      registrationStatus: 'registered',
      learningPath: null,
      userGroups: [],
      lastActive: expect.any(String),
    })
    const last = await page('orgId=org-1&offset=200&limit=100')
    expect(last.users).toHaveLength(31)
    const all = [
      ...(await page('orgId=org-1&limit=100')).users,
      ...(await page('orgId=org-1&offset=100&limit=100')).users,
      ...last.users,
    ].map((u: { id: string }) => u.id)
    expect(new Set(all).size).toBe(231)

    const found = await page('orgId=org-1&q=ZEBED')
    expect(found).toEqual({ total: 1, users: [first.users[0]] })
    const byUserId = await page(`orgId=org-1&q=${first.users[0].userId}`)
    expect(byUserId.users.map((u: { id: string }) => u.id)).toEqual(['newest-user'])
    expect((await page('orgId=org-2&q=newest-user')).total).toBe(0)
  })

  it('refuses an unbounded or malformed query with 400 and says why', async () => {
    for (const query of [
      'orgId=org-1&limit=101',
      'orgId=org-1&limit=0',
      'orgId=org-1&offset=-1',
      'orgId=org-1&limit=ten',
      `orgId=org-1&q=${'x'.repeat(201)}`,
      'q=ada',
      'orgId=org-1&other=1',
    ]) {
      const res = await get(`/__mock/users?${query}`)
      expect(res.status, query).toBe(400)
      expect((await res.json()).message, query).toMatch(/^Invalid query: /)
    }
    expect((await get('/__mock/user?orgId=org-1')).status).toBe(400)
    expect((await get('/__mock/requests?limit=0')).status).toBe(400)
    await expectError(
      await fetch(`${server.url}/__mock/users`, { method: 'POST' }),
      405,
      'Method not allowed',
    )
  })

  it("shows one user's tokens, sessions, progress and certificates, never a token or its hash", async () => {
    const { token } = await expectIdentified(await identify('with-token'))
    await server.core.redeemToken('org-1', (await (await identify('with-token')).json()).token)
    const res = await get('/__mock/user?orgId=org-1&id=with-token')
    const text = await res.text()
    expect(text).not.toContain(token)
    expect(text).not.toContain(hashSecret(token))
    expect(text).not.toMatch(/[0-9a-f]{64}/)
    const user = JSON.parse(text)
    expect(user.tokens).toHaveLength(2)
    expect(user.tokenCount).toBe(2)
    expect(Object.keys(user.tokens[0]).sort()).toEqual(['expiresAt', 'issuedAt', 'redeemedAt'])
    expect(user.tokens[0].redeemedAt).toEqual(expect.any(String))
    expect(user.tokens[1].redeemedAt).toBeNull()
    expect(user.profile).toMatchObject({ firstName: 'Ada', registrationStatus: 'registered' })

    const state = await server.core.state()
    const seeded = state.users.find((u) =>
      state.certificates.some((c) => c.userId === u.userId && u.orgId === 'org-1'),
    )
    const withCertificate = await (await get(`/__mock/user?orgId=org-1&id=${seeded?.id}`)).json()
    expect(withCertificate.certificates).toHaveLength(1)
    expect(withCertificate.progress).toMatchObject({ completedAt: expect.any(String) })
    await expectError(await get('/__mock/user?orgId=org-2&id=with-token'), 404, 'User not found')
  })

  it('deletes a user and everything that refers to it, without a fault or a journal entry', async () => {
    await expectIdentified(await identify('doomed'))
    server.core.failNext('delete', { status: 500 })
    const journalled = server.core.requests().length
    const { userId } = (await server.core.state()).users.find((u) => u.id === 'doomed') ?? {}
    const res = await fetch(`${server.url}/__mock/user?orgId=org-1&id=doomed`, { method: 'DELETE' })
    expect(await res.json()).toEqual({ id: 'doomed', deleted: true })
    const state = JSON.stringify(await server.core.state())
    expect(userId).toEqual(expect.any(String))
    expect(state).not.toContain(userId)
    expect(server.core.requests()).toHaveLength(journalled)
    expect(server.core.queuedFaults()).toHaveLength(1)
    const again = await fetch(`${server.url}/__mock/user?orgId=org-1&id=doomed`, {
      method: 'DELETE',
    })
    await expectError(again, 404, 'User not found')
    await server.core.reset()
  })

  it('lists the queued faults as they are used up, and the newest journal entries', async () => {
    server.core.failNext('identify', { status: 403, count: 2 })
    server.core.failNext('delete', { status: 404, delayMs: 5 })
    expect(await (await get('/__mock/faults')).json()).toEqual([
      { operation: 'identify', status: 403, remaining: 2, delayMs: 0 },
      { operation: 'delete', status: 404, remaining: 1, delayMs: 5 },
    ])
    await expectError(await identify('x'), 403, 'Forbidden')
    expect(await (await get('/__mock/faults')).json()).toEqual([
      { operation: 'identify', status: 403, remaining: 1, delayMs: 0 },
      { operation: 'delete', status: 404, remaining: 1, delayMs: 5 },
    ])
    await identify('y')
    const newest = await (await get('/__mock/requests?limit=1')).json()
    expect(newest).toEqual([
      expect.objectContaining({ status: 403, path: '/api/v1/users/identify' }),
    ])
    expect(await (await get('/__mock/requests?limit=1000')).json()).toHaveLength(2)
    await server.core.reset()
    expect(await (await get('/__mock/faults')).json()).toEqual([])
  })
})

describe('the inspector behind the server’s control options', () => {
  it('serves the page without the control token, and its data only with it', async () => {
    const token = 'inspector-endpoints-token'
    const server = await startServer({ port: 0, controlToken: token })
    try {
      for (const [path] of pageFiles) expect((await fetch(server.url + path)).status).toBe(200)
      for (const path of dataPaths) {
        await expectError(await fetch(server.url + path), 401, 'Unauthorized')
        const res = await fetch(server.url + path, {
          headers: { authorization: `Bearer ${token}` },
        })
        expect([200, 404], path).toContain(res.status)
        expect(await res.text()).not.toContain(token)
      }
      await expectError(await fetch(`${server.url}/__mock`), 401, 'Unauthorized')
      const html = await (await fetch(`${server.url}/__mock/`)).text()
      expect(html).not.toContain(server.core.credentials[0]?.apiKeys[0])
    } finally {
      await server.close()
    }
  })

  it('is off with the control endpoints', async () => {
    const server = await startServer({ port: 0, control: false })
    try {
      for (const path of [...pageFiles.map(([p]) => p), ...dataPaths]) {
        await expectError(await fetch(server.url + path), 404, 'Not found')
      }
    } finally {
      await server.close()
    }
  })

  it('keeps a delete in the state file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'inspector-delete-'))
    const stateFile = join(dir, 'state.jsonl')
    try {
      const first = await startServer({ port: 0, stateFile })
      const { id } = (await first.core.state()).users[0] ?? {}
      const res = await fetch(`${first.url}/__mock/user?orgId=org-1&id=${id}`, { method: 'DELETE' })
      expect(res.status).toBe(200)
      await first.close()
      const second = await startServer({ port: 0, stateFile })
      expect((await second.core.state()).users.map((u) => u.id)).not.toContain(id)
      await second.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
