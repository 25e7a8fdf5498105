import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openConnection, writeAll } from '../support/raw-socket.ts'
import { dispatchRaw, httpWayIn, mswWayIn, type WayIn } from '../support/way-in.ts'

/**
 * The bugs the property-based tests found, each pinned by name through every way in it can
 * reach: the transport-free dispatch, the MSW handlers, and the HTTP server.
 */

/** The MSW handlers' way in; its mock is also the one dispatch is called on. */
let msw: WayIn
let http: WayIn
let key: string

beforeAll(async () => {
  msw = await mswWayIn()
  http = await httpWayIn()
  key = msw.credentials[0]?.apiKeys[0] ?? ''
  expect(http.credentials[0]?.apiKeys[0]).toBe(key)
})
afterAll(() => Promise.all([msw.close(), http.close()]))

const identifyBody = JSON.stringify({ id: 'regression', orgId: 'org-1' })

/** Identify through all three ways in; the answers' statuses. */
async function identifyEverywhere(headers: Record<string, string>) {
  const request = { method: 'POST', target: '/api/v1/users/identify', headers, body: identifyBody }
  const wire = await dispatchRaw(msw.core, request)
  const viaMsw = await msw.send(request)
  const viaHttp = await http.send(request)
  return { dispatch: wire.status, msw: viaMsw.status, http: viaHttp.status }
}

describe('bug: an API key with a no-break space around it was accepted (String#trim is wider than HTTP whitespace)', () => {
  for (const authorization of [
    () => `Bearer ${key}\u00a0`,
    () => `\u00a0Bearer ${key}`,
    () => `Bearer \u00a0${key}`,
  ]) {
    it(`refuses ${JSON.stringify(authorization().replace(key, '<key>'))} with 401`, async () => {
      const before = await msw.state()
      expect(
        await identifyEverywhere({
          authorization: authorization(),
          'content-type': 'application/json',
        }),
      ).toEqual({ dispatch: 401, msw: 401, http: 401 })
      expect(await msw.state()).toEqual(before)
    })
  }

  it('refuses line breaks and other Unicode whitespace around the key on the transport-free way in', async () => {
    for (const authorization of [
      `Bearer ${key}\n`,
      `Bearer ${key}\u2028`,
      `Bearer ${key}\u000b`,
      `\ufeffBearer ${key}`,
    ]) {
      const response = await dispatchRaw(msw.core, {
        method: 'DELETE',
        target: '/api/v1/users/org-1/nobody',
        headers: { authorization },
      })
      expect(response.status).toBe(401)
    }
  })

  it('still accepts spaces and tabs around and between the parts', async () => {
    expect(
      await identifyEverywhere({
        authorization: `\t bearer \t${key} \t`,
        'content-type': 'application/json',
      }),
    ).toEqual({ dispatch: 200, msw: 200, http: 200 })
  })
})

describe('bug: a Content-Type of application/json with a no-break space around it was accepted', () => {
  it('answers 400 Invalid request parameters', async () => {
    for (const contentType of ['application/json\u00a0', '\u00a0application/json; charset=utf-8']) {
      expect(
        await identifyEverywhere({ authorization: `Bearer ${key}`, 'content-type': contentType }),
      ).toEqual({ dispatch: 400, msw: 400, http: 400 })
    }
    expect(
      await identifyEverywhere({
        authorization: `Bearer ${key}`,
        'content-type': ' \tApplication/JSON \t; charset=utf-8',
      }),
    ).toEqual({ dispatch: 200, msw: 200, http: 200 })
  })
})

describe('bug: the HTTP server dropped a CONNECT request without an answer', () => {
  it('answers it like any other request, with a JSON error, and closes the connection', async () => {
    const conn = await openConnection(http.url(''))
    await writeAll(
      conn.socket,
      'CONNECT /api/v1/users/identify HTTP/1.1\r\nHost: localhost\r\n\r\n',
    )
    await conn.closed
    expect(conn.received()).toMatch(/^HTTP\/1\.1 405 Method Not Allowed\r\n/)
    expect(conn.received()).toMatch(/\r\nallow: POST\r\n/)
    expect(conn.received()).toMatch(/\r\n\r\n\{"code":405,"message":"Method not allowed"\}$/)
  })
})
