import { setupServer } from 'msw/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MockCore } from '../../src/root/advanced.ts'
import { createMockApi } from '../../src/root/index.ts'
import { expectError, expectIdentified } from '../support/expect-body.ts'

const key = 'test-key'
const organisations = [{ orgId: 'acme', apiKeys: [key] }]

function identifyRequest(origin: string, id: string, orgId = 'acme') {
  return new Request(`${origin}/api/v1/users/identify`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id, orgId }),
  })
}

describe('createMockApi', () => {
  const a = createMockApi({ organisations, baseUrl: 'http://a.test' })
  const b = createMockApi({ organisations, baseUrl: 'http://b.test/' })
  const anyOrigin = createMockApi({ organisations })
  const server = setupServer(...a.handlers, ...b.handlers)
  beforeAll(() => server.listen({ onUnhandledFrame: 'error' }))
  afterAll(() => server.close())

  it('gives two instances separate state', async () => {
    await expectIdentified(await fetch(identifyRequest('http://a.test', 'only-in-a')))
    expect((await a.state()).users.some((u) => u.id === 'only-in-a')).toBe(true)
    expect((await b.state()).users.some((u) => u.id === 'only-in-a')).toBe(false)
  })

  it('pins handlers to baseUrl, and matches any origin without one', async () => {
    const other = setupServer(...anyOrigin.handlers)
    server.close()
    other.listen({ onUnhandledFrame: 'error' })
    try {
      await expectIdentified(await fetch(identifyRequest('https://anything.example', 'anywhere')))
      await expectIdentified(await fetch(identifyRequest('http://localhost:1234', 'local')))
    } finally {
      other.close()
      server.listen({ onUnhandledFrame: 'error' })
    }
    await expect(fetch(identifyRequest('http://c.test', 'x'))).rejects.toThrow()
  })

  it('exposes the model through @msw/data, and indexes records seeded with create', async () => {
    await a.ready
    await a.db.users.create({
      userId: 'seeded-by-test',
      orgId: 'acme',
      id: 'from-db',
      registrationStatus: 'unregistered',
      registeredAt: null,
      lastActive: null,
      firstName: 'Grace',
      lastName: null,
      country: null,
      region: null,
      sex: null,
      ageBracket: null,
      userGroups: [],
    })
    const body = await expectIdentified(await fetch(identifyRequest('http://a.test', 'from-db')))
    expect(body.data).toMatchObject({ userId: 'seeded-by-test', firstName: 'Grace' })
    expect(a.db.users.findFirst((q) => q.where({ id: 'from-db' }))?.lastActive).toBe(
      body.data.lastActive,
    )
  })

  it('refuses invalid options with a TypeError that names the option', () => {
    expect(() => createMockApi({ tokenTtlSeconds: -1 })).toThrow(/tokenTtlSeconds/)
    expect(() => createMockApi({ authFailureStatus: 402 as 401 })).toThrow(TypeError)
    expect(() => createMockApi({ baseUrl: 'not a url' })).toThrow(/baseUrl/)
    // A misspelt option is named as the user wrote it, with nothing made up before it.
    expect(() => createMockApi({ sede: 1 } as object)).toThrow(
      /^Invalid options: Unrecognized key: "sede"$/,
    )
  })

  it('refuses a fault that is not a documented error of its operation', () => {
    expect(() => a.failNext('identify', { status: 404 })).toThrow(
      'Invalid fault: status: identify documents 400, 403 or 500: a fault takes one of them',
    )
    expect(() => a.failNext('delete', { status: 400 })).toThrow(TypeError)
    expect(() => a.failNext('delete', { status: 400 })).toThrow(
      'Invalid fault: status: delete documents 403, 404 or 500: a fault takes one of them',
    )
    expect(() => a.failNext('delete', { status: 500, count: 0 })).toThrow(/count/)
  })

  it('keeps only the newest journalSize entries of an organisation, and of the calls of none', async () => {
    const api = new MockCore({ organisations, journalSize: 3 })
    for (const id of ['1', '2', '3', '4', '5']) {
      const request = identifyRequest('http://x.test', id)
      await api.dispatch({
        method: 'POST',
        target: `/api/v1/users/identify?n=${id}`,
        headers: request.headers,
        body: new Uint8Array(await request.arrayBuffer()),
      })
    }
    await api.dispatch({
      method: 'GET',
      target: '/api/nowhere',
      headers: new Headers(),
      body: null,
    })
    // The organisation's five calls keep their newest three; the 404, owned by none, has its own bound.
    expect(api.requests().map((e) => e.status)).toEqual([200, 200, 200, 404])
    expect(api.calls('identify').map((c) => (c.request as { id: string }).id)).toEqual([
      '3',
      '4',
      '5',
    ])
    expect(api.requests().every((e) => !e.path.includes('?'))).toBe(true)
  })

  it('answers an identify at once even before the seed has loaded', async () => {
    const api = createMockApi({ organisations, baseUrl: 'http://fresh.test' })
    server.use(...api.handlers)
    await expectIdentified(await fetch(identifyRequest('http://fresh.test', 'first')))
    await expectError(
      await fetch(identifyRequest('http://fresh.test', 'x', 'org-1')),
      403,
      'Forbidden',
    )
  })
})
