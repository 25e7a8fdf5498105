import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from '../../src/server/server.ts'
import { sendRaw } from '../support/http-client.ts'

/**
 * How the server reads a request's header fields: whatever the case of a field's name, and a
 * repeated field as Node's `headers` object has it (the first of two `Authorization` or
 * `Content-Type` lines kept, two `Origin` lines joined), so that its answers follow Node's rules.
 */
describe('the header fields of a request, as Node reads them', () => {
  let server: RunningServer
  let key: string
  beforeAll(async () => {
    server = await startServer({ port: 0 })
    key = server.core.credentials[0]?.apiKeys[0] ?? ''
  })
  afterAll(() => server.close())

  const body = new TextEncoder().encode(JSON.stringify({ id: 'fields', orgId: 'org-1' }))
  const post = (url: string, headers: Record<string, string | string[]>) =>
    sendRaw(url, { method: 'POST', target: '/api/v1/users/identify', headers, body })
  const identify = (headers: Record<string, string | string[]>) => post(server.url, headers)

  it('reads a field sent once whatever the case of its name', async () => {
    const answer = await identify({
      AUTHORIZATION: `Bearer ${key}`,
      'CONTENT-TYPE': 'application/json',
    })
    expect(answer.status).toBe(200)
    expect(JSON.parse(answer.text).id).toBe('fields')
  })

  it('keeps the first of two Authorization or Content-Type lines, as Node does', async () => {
    const json = { 'content-type': 'application/json' }
    const firstKey = await identify({ ...json, authorization: [`Bearer ${key}`, 'Bearer nope'] })
    expect(firstKey.status).toBe(200)
    const secondKey = await identify({ ...json, authorization: ['Bearer nope', `Bearer ${key}`] })
    expect(secondKey.status).toBe(401)
    const auth = { authorization: `Bearer ${key}` }
    const firstJson = await identify({
      ...auth,
      'content-type': ['application/json', 'text/plain'],
    })
    expect(firstJson.status).toBe(200)
    const secondJson = await identify({
      ...auth,
      'content-type': ['text/plain', 'application/json'],
    })
    expect(JSON.parse(secondJson.text)).toEqual({
      code: 400,
      message: 'Invalid request parameters',
    })
  })

  it('joins the lines of a repeated Origin, as Node does: no CORS for either origin', async () => {
    const cors = await startServer({ port: 0, cors: ['http://app.test'] })
    try {
      const headers = {
        authorization: `Bearer ${cors.core.credentials[0]?.apiKeys[0] ?? ''}`,
        'content-type': 'application/json',
      }
      const answer = await post(cors.url, {
        ...headers,
        origin: ['http://app.test', 'http://other.test'],
      })
      expect(answer.status).toBe(200)
      expect(answer.header('access-control-allow-origin')).toBeNull()
      const once = await post(cors.url, { ...headers, Origin: 'http://app.test' })
      expect(once.header('access-control-allow-origin')).toBe('http://app.test')
    } finally {
      await cors.close()
    }
  })
})
