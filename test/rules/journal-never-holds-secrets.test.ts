import { describe, expect, it } from 'vitest'
import { createMockApi } from '../../src/root/index.ts'

const key = 'sk_test_journal0123456789abcdef'
const organisations = [{ orgId: 'acme', apiKeys: [key] }]
const auth = { authorization: `Bearer ${key}` }
const json = { ...auth, 'content-type': 'application/json' }
const origin = 'https://api.example.test'

async function signIn(api: ReturnType<typeof createMockApi>, id: string): Promise<string> {
  const response = await api.fetch(`${origin}/api/v1/users/identify`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ id, orgId: 'acme' }),
  })
  expect(response.status).toBe(200)
  return ((await response.json()) as { token: string }).token
}

function expectNoSecret(api: ReturnType<typeof createMockApi>, ...secrets: string[]) {
  const journal = JSON.stringify(api.requests())
  for (const secret of secrets) {
    expect(journal).not.toContain(secret)
    expect(journal).not.toContain(encodeURIComponent(secret))
  }
}

describe('the journal never holds a key or a token in clear', () => {
  it('redacts a delete whose id is a live sign-in token, in its path and its request', async () => {
    const api = createMockApi({ organisations })
    const token = await signIn(api, 'ada')
    const response = await api.fetch(`${origin}/api/v1/users/acme/${token}`, {
      method: 'DELETE',
      headers: auth,
    })
    expect(response.status).toBe(404)
    expect(api.requests().at(-1)).toMatchObject({
      path: '/api/v1/users/acme/[redacted]',
      operation: 'delete',
      request: { orgId: 'acme', id: '[redacted]' },
      status: 404,
    })
    expectNoSecret(api, token)
  })

  it('redacts a delete answered 200 for a user whose id is the API key, and its identify', async () => {
    const api = createMockApi({ organisations })
    await signIn(api, key)
    const response = await api.fetch(`${origin}/api/v1/users/acme/${encodeURIComponent(key)}`, {
      method: 'DELETE',
      headers: auth,
    })
    expect(response.status).toBe(200)
    expect(api.calls()).toMatchObject([
      { operation: 'identify', request: { id: '[redacted]', orgId: 'acme' }, status: 200 },
      { operation: 'delete', request: { orgId: 'acme', id: '[redacted]' }, status: 200 },
    ])
    expect(api.requests().at(-1)?.path).toBe('/api/v1/users/acme/[redacted]')
    expectNoSecret(api, key)
  })

  it('redacts a key or token embedded in a longer string of a body, refused or not', async () => {
    const api = createMockApi({ organisations })
    const token = await signIn(api, 'ada')
    const send = (body: unknown) =>
      api.fetch(`${origin}/api/v1/users/identify`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify(body),
      })
    expect((await send({ id: 'ada', orgId: 'acme', apiKey: `Bearer ${key}` })).status).toBe(400)
    const accepted = await send({
      id: 'grace',
      orgId: 'acme',
      data: { firstName: `token=${token};`, lastName: `"${key}"` },
    })
    expect(accepted.status).toBe(200)
    expect(api.calls().slice(1)).toMatchObject([
      { status: 400, request: { id: 'ada', orgId: 'acme', apiKey: '[redacted]' } },
      {
        status: 200,
        request: { id: 'grace', data: { firstName: '[redacted]', lastName: '[redacted]' } },
      },
    ])
    expectNoSecret(api, key, token)
  })

  it('redacts a secret in the path of a request no route has', async () => {
    const api = createMockApi({ organisations })
    const token = await signIn(api, 'ada')
    await api.fetch(`${origin}/api/v1/users/${token}/x/y`, { headers: auth })
    await api.fetch(`${origin}/api/v1/users/acme/${encodeURIComponent(`Bearer ${key}`)}`, {
      method: 'PUT',
      headers: auth,
    })
    expect(
      api
        .requests()
        .slice(1)
        .map((entry) => [entry.status, entry.path]),
    ).toEqual([
      [404, '/api/v1/users/[redacted]/x/y'],
      [405, '/api/v1/users/acme/[redacted]'],
    ])
    expectNoSecret(api, key, token)
  })

  it('redacts a key of any length in a refused identify and in a delete, answered or not', async () => {
    const api = createMockApi({ organisations: [{ orgId: 'k', apiKeys: ['k1'] }] })
    const headers = { authorization: 'Bearer k1', 'content-type': 'application/json' }
    const identify = (body: unknown) =>
      api.fetch(`${origin}/api/v1/users/identify`, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
      })
    expect((await identify({ id: 'k1', orgId: 'k', x: 'k1' })).status).toBe(400)
    // An answered identify's strings of fewer than 8 characters are not hashed (the hot path):
    // docs/guides/testing.md, "Asserting what your code sent".
    expect((await identify({ id: 'k1', orgId: 'k' })).status).toBe(200)
    const remove = () => api.fetch(`${origin}/api/v1/users/k/k1`, { method: 'DELETE', headers })
    expect((await remove()).status).toBe(200)
    expect((await remove()).status).toBe(404)
    const refusedOrDeletes = api
      .requests()
      .filter((entry) => entry.status !== 200 || entry.operation === 'delete')
    expect(refusedOrDeletes.map((entry) => [entry.status, entry.path, entry.request])).toEqual([
      [400, '/api/v1/users/identify', { id: '[redacted]', orgId: 'k', x: '[redacted]' }],
      [200, '/api/v1/users/k/[redacted]', { orgId: 'k', id: '[redacted]' }],
      [404, '/api/v1/users/k/[redacted]', { orgId: 'k', id: '[redacted]' }],
    ])
  })

  it('keeps what is not a secret as it was sent', async () => {
    const api = createMockApi({ organisations })
    await api.fetch(`${origin}/api/v1/users/acme/not-a-secret-at-all`, {
      method: 'DELETE',
      headers: auth,
    })
    expect(api.requests()).toMatchObject([
      {
        path: '/api/v1/users/acme/not-a-secret-at-all',
        request: { orgId: 'acme', id: 'not-a-secret-at-all' },
      },
    ])
  })
})
