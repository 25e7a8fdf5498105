import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMockApi } from '../../src/root/index.ts'
import { type RunningServer, startServer } from '../../src/server/server.ts'

/** About 8 KB of `[[[[…]]]]`: JSON.parse takes it, a recursive walk overflows the stack. */
const deep = `${'['.repeat(4000)}${']'.repeat(4000)}`
const organisations = [{ orgId: 'acme', apiKeys: ['test-key'] }]
const json = { authorization: 'Bearer test-key', 'content-type': 'application/json' }
const identifyBody = `{"id":"ada","orgId":"acme","x":${deep}}`

let server: RunningServer
beforeAll(async () => {
  server = await startServer({ port: 0, organisations })
})
afterAll(async () => {
  await server.close()
})

describe('a deeply nested JSON body', () => {
  it('is an identify answered 400 over HTTP, journaled with request null', async () => {
    const response = await fetch(`${server.url}/api/v1/users/identify`, {
      method: 'POST',
      headers: json,
      body: identifyBody,
    })
    expect(response.status).toBe(400)
    const journal = await (await fetch(`${server.url}/__mock/requests`)).json()
    expect(journal).toMatchObject([{ operation: 'identify', request: null, status: 400 }])
  })

  it('is an identify answered 400 through api.fetch', async () => {
    const api = createMockApi({ organisations })
    const response = await api.fetch('https://api.example.test/api/v1/users/identify', {
      method: 'POST',
      headers: json,
      body: identifyBody,
    })
    expect(response.status).toBe(400)
    expect(api.calls()).toMatchObject([{ operation: 'identify', request: null, status: 400 }])
  })

  it('is an event answered 400 by POST /__mock/events, saying why', async () => {
    const response = await fetch(`${server.url}/__mock/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"type":"custom.thing","data":{"x":${deep}}}`,
    })
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({
      code: 400,
      message: 'Invalid event: its data nests deeper than 64 levels',
    })
  })
})
