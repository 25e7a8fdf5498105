import http, { request as namedRequest } from 'node:http'
import { setupServer } from 'msw/node'
import { expect, it } from 'vitest'
import { createMockApi } from '../../src/root/index.ts'

/** What docs/guides/testing.md, "Which clients the handlers reach", says of node:http and captured fetches. */
const organisations = [{ orgId: 'acme', apiKeys: ['test-key'] }]

it('reaches node:http requests through setupServer', async () => {
  const api = createMockApi({ organisations })
  const server = setupServer(...api.handlers)
  server.listen({ onUnhandledFrame: 'error' })
  try {
    const status = await new Promise<number | undefined>((resolve, reject) => {
      http
        .request('http://api.example.test/api/v1/users/acme/nobody', {
          method: 'DELETE',
          headers: { authorization: 'Bearer test-key' },
        })
        .on('response', (res) => {
          res.resume()
          resolve(res.statusCode)
        })
        .on('error', reject)
        .end()
    })
    expect(status).toBe(404)
    expect(api.calls()).toMatchObject([{ operation: 'delete', status: 404 }])
  } finally {
    server.close()
  }
})

it('misses a fetch taken before listen(), which api.fetch does not', async () => {
  const api = createMockApi({ organisations })
  const capturedAtImport = globalThis.fetch
  const server = setupServer(...api.handlers)
  server.listen({ onUnhandledFrame: 'bypass' })
  const url = 'http://api.example.test/api/v1/users/acme/nobody'
  const init = { method: 'DELETE', headers: { authorization: 'Bearer test-key' } }
  try {
    // `.test` never resolves: the captured fetch goes to the network and fails there.
    await expect(capturedAtImport(url, init)).rejects.toThrow(TypeError)
    expect(api.calls()).toEqual([])
    expect((await api.fetch(url, init)).status).toBe(404)
    expect(api.calls()).toHaveLength(1)
  } finally {
    server.close()
  }
})

it('misses a request function imported by name from node:http', async () => {
  const api = createMockApi({ organisations })
  const server = setupServer(...api.handlers)
  server.listen({ onUnhandledFrame: 'bypass' })
  try {
    const failure = await new Promise<Error>((resolve) => {
      namedRequest('http://api.example.test/api/v1/users/acme/nobody', { method: 'DELETE' })
        .on('response', () => resolve(new Error('answered')))
        .on('error', resolve)
        .end()
    })
    expect(failure.message).toMatch(/ENOTFOUND|EAI_AGAIN/)
    expect(api.calls()).toEqual([])
  } finally {
    server.close()
  }
})
