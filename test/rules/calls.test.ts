import { describe, expect, it } from 'vitest'
import { maxJournaledBodyBytes } from '../../src/core/journal.ts'
import { createMockApi } from '../../src/root/index.ts'
import { startServer } from '../../src/server/server.ts'

const organisations = [{ orgId: 'acme', apiKeys: ['test-key'] }]
const auth = { authorization: 'Bearer test-key' }
const json = { ...auth, 'content-type': 'application/json' }
const origin = 'https://api.example.test'

describe('api.calls()', () => {
  it('lists every matched API call, whatever the answer, oldest first, with what it asked', async () => {
    const api = createMockApi({ organisations })
    const identify = (body: string, headers: Record<string, string> = json) =>
      api.fetch(`${origin}/api/v1/users/identify`, { method: 'POST', headers, body })
    await identify(JSON.stringify({ id: 'ada', orgId: 'acme', data: { firstName: 'Ada' } }))
    await identify(JSON.stringify({ id: 'ada' }), { 'content-type': 'application/json' })
    await identify(JSON.stringify({ id: '', orgId: 'acme' }))
    await identify('not json')
    await api.fetch(`${origin}/api/v1/users/acme/a%2Fb`, { method: 'DELETE', headers: auth })
    await api.fetch(`${origin}/api/v1/nowhere`, { headers: auth })
    await api.fetch(`${origin}/webview?orgId=acme&token=secret-token`)

    const calls = api.calls()
    const stamped = { time: expect.any(String), orgTime: expect.any(String) }
    expect(calls).toEqual([
      {
        operation: 'identify',
        request: { id: 'ada', orgId: 'acme', data: { firstName: 'Ada' } },
        status: 200,
        time: expect.stringMatching(/\+00:00$/),
        // No clock set: the organisation's time is the real one.
        orgTime: calls[0]?.time,
        shape: 'full',
      },
      // Refused before its key: its body is not read, on any way in.
      { operation: 'identify', request: null, status: 401, ...stamped },
      {
        operation: 'identify',
        request: { id: '', orgId: 'acme' },
        status: 400,
        ...stamped,
      },
      { operation: 'identify', request: null, status: 400, ...stamped },
      {
        operation: 'delete',
        request: { orgId: 'acme', id: 'a/b' },
        status: 404,
        ...stamped,
      },
    ])
    expect(api.calls('delete')).toEqual([calls[4]])
    expect(api.calls('identify')).toEqual(calls.slice(0, 4))
    expect(api.requests().map((e) => e.operation)).toEqual([
      'identify',
      'identify',
      'identify',
      'identify',
      'delete',
      undefined,
      undefined,
    ])
    expect(JSON.stringify(api.requests())).not.toMatch(/test-key|secret-token/)
  })

  it('keeps an identify body larger than 16 KiB as null, and still answers it', async () => {
    const api = createMockApi({ organisations })
    // JSON's own whitespace makes it large: every field stays within the identify limits.
    const body = `${JSON.stringify({ id: 'big', orgId: 'acme', data: { firstName: 'Ada' } })}${' '.repeat(maxJournaledBodyBytes)}`
    const response = await api.fetch(`${origin}/api/v1/users/identify`, {
      method: 'POST',
      headers: json,
      body,
    })
    expect(response.status).toBe(200)
    expect(api.calls()).toMatchObject([{ operation: 'identify', request: null, status: 200 }])
  })

  it('is bounded by the journal and cleared by reset', async () => {
    const api = createMockApi({ organisations, journalSize: 2 })
    for (const id of ['1', '2', '3']) {
      await api.fetch(`${origin}/api/v1/users/acme/${id}`, { method: 'DELETE', headers: auth })
    }
    expect(api.calls().map((c) => c.request)).toEqual([
      { orgId: 'acme', id: '2' },
      { orgId: 'acme', id: '3' },
    ])
    await api.reset()
    expect(api.calls()).toEqual([])
  })
})

describe('a secret sent in a refused identify body', () => {
  it('is journaled as [redacted]: a key, a sign-in token, anywhere in the body', async () => {
    const api = createMockApi({ organisations })
    const send = (body: unknown, key = 'test-key') =>
      api.fetch(`${origin}/api/v1/users/identify`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    const { token } = (await (await send({ id: 'ada', orgId: 'acme' })).json()) as { token: string }
    await send({ id: 'test-key', orgId: token })
    await send({ id: 'test-key', orgId: token }, 'wrong-key')
    await send({ id: 'ada', orgId: 'acme', data: { userGroups: [token] }, [token]: 'test-key' })
    expect(api.calls().map((c) => [c.status, c.request])).toEqual([
      [200, { id: 'ada', orgId: 'acme' }],
      [403, { id: '[redacted]', orgId: '[redacted]' }],
      // Refused before its key: its body is never read, nor kept.
      [401, null],
      [
        400,
        {
          id: 'ada',
          orgId: 'acme',
          data: { userGroups: ['[redacted]'] },
          '[redacted]': '[redacted]',
        },
      ],
    ])
    expect(JSON.stringify(api.requests())).not.toMatch(new RegExp(`test-key|${token}`))
  })
})

describe('GET /__mock/requests', () => {
  it('serves each entry with its operation and request, never a key or token', async () => {
    const server = await startServer({ port: 0, organisations })
    try {
      const identify = await fetch(`${server.url}/api/v1/users/identify`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ id: 'ada', orgId: 'acme' }),
      })
      const { token } = (await identify.json()) as { token: string }
      await fetch(`${server.url}/webview?orgId=acme&token=${token}`)
      await fetch(`${server.url}/api/v1/users/acme/ada`, { method: 'DELETE', headers: auth })
      const entries = await (await fetch(`${server.url}/__mock/requests`)).json()
      expect(entries).toEqual([
        expect.objectContaining({
          path: '/api/v1/users/identify',
          operation: 'identify',
          request: { id: 'ada', orgId: 'acme' },
        }),
        expect.not.objectContaining({ operation: expect.anything() }),
        expect.objectContaining({ operation: 'delete', request: { orgId: 'acme', id: 'ada' } }),
      ])
      expect(JSON.stringify(entries)).not.toContain(token)
      expect(JSON.stringify(entries)).not.toContain('test-key')
    } finally {
      await server.close()
    }
  })
})
