import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from '../../src/server/server.ts'
import { expectRefusal, startCli } from '../support/cli-process.ts'
import { sendRaw } from '../support/http-client.ts'
import { mockHealth } from '../support/mock-health.ts'
import { openConnection, writeAll } from '../support/raw-socket.ts'

/**
 * The standalone server's front door (docs/guides/behaviour.md, "The standalone server on a shared machine"):
 * the `Host` rule against DNS rebinding, one `Host` exactly, absolute-form targets, the cross-site
 * and JSON-only rules of `/__mock`, `HEAD` and `Allow`, and CORS.
 */

const forbidden = { code: 403, message: 'Forbidden' }
const json = { 'content-type': 'application/json' }

/** The parsed JSON body of an answer, with its status. */
function answerOf(answer: { status: number; text: string; header(name: string): string | null }) {
  expect(answer.header('content-type')).toBe('application/json')
  return { status: answer.status, body: JSON.parse(answer.text) }
}

describe('bound to loopback (the default)', () => {
  let server: RunningServer
  let key: string
  beforeAll(async () => {
    server = await startServer({ port: 0, allowedHosts: ['mock.internal'] })
    key = server.core.credentials[0]?.apiKeys[0] ?? ''
  })
  afterAll(() => server.close())

  const identify = (
    headers: Record<string, string | string[]>,
    target = '/api/v1/users/identify',
  ) =>
    sendRaw(server.url, {
      method: 'POST',
      target,
      headers: { authorization: `Bearer ${key}`, ...json, ...headers },
      body: new TextEncoder().encode(JSON.stringify({ id: 'rebound', orgId: 'org-1' })),
    })

  it('refuses a rebinding Host with 403 on /__mock/state and on /api, changing nothing', async () => {
    const before = await server.core.state()
    const host = 'rebind.attacker.example'
    const state = await sendRaw(server.url, {
      method: 'GET',
      target: '/__mock/state',
      headers: { host },
    })
    expect(answerOf(state)).toEqual({ status: 403, body: forbidden })
    expect(answerOf(await identify({ host: `${host}:4010` }))).toEqual({
      status: 403,
      body: forbidden,
    })
    expect(await server.core.state()).toEqual(before)
    expect(server.core.requests()).toEqual([])
  })

  it('answers an HTML 403 page for the web view under a foreign Host', async () => {
    const page = await sendRaw(server.url, {
      method: 'GET',
      target: '/webview?orgId=org-1&token=x',
      headers: { host: 'rebind.attacker.example' },
    })
    expect(page.status).toBe(403)
    expect(page.header('content-type')).toBe('text/html; charset=utf-8')
    expect(page.text).toContain('<h1>Forbidden</h1>')
  })

  it('answers localhost, names under .localhost, IP literals and the allowed hosts, any port', async () => {
    const port = new URL(server.url).port
    for (const host of [
      `127.0.0.1:${port}`,
      '127.0.0.1',
      '127.1.2.3:80',
      `localhost:${port}`,
      'LOCALHOST',
      'app.localhost:5173',
      `[::1]:${port}`,
      '10.0.0.7:4010',
      '192.168.1.20',
      '[2001:db8::1]:8080',
      'mock.internal',
      'Mock.Internal:8080',
    ]) {
      const health = await sendRaw(server.url, {
        method: 'GET',
        target: '/__mock/health',
        headers: { host },
      })
      expect({ host, ...answerOf(health) }).toEqual({ host, status: 200, body: mockHealth() })
    }
    for (const host of [
      'mock.internal.attacker.example',
      'sub.mock.internal',
      'localhost.attacker.example',
      'attacker-localhost',
      '127.0.0.1.nip.io',
      'a@127.0.0.1',
    ]) {
      const health = await sendRaw(server.url, {
        method: 'GET',
        target: '/__mock/health',
        headers: { host },
      })
      expect({ host, ...answerOf(health) }).toEqual({ host, status: 403, body: forbidden })
    }
  })

  it('judges each Host by the rule, past the number of Host values it remembers too', async () => {
    // The verdicts are remembered per Host value, 256 at most: 300 names, each asked twice.
    const hosts = Array.from({ length: 300 }, (_, i) =>
      i % 2 === 0 ? `app${i}.localhost` : `app${i}.attacker.example`,
    )
    for (const host of [...hosts, ...hosts]) {
      const health = await sendRaw(server.url, {
        method: 'GET',
        target: '/__mock/health',
        headers: { host },
      })
      const status = host.endsWith('.localhost') ? 200 : 403
      expect({ host, status: health.status }).toEqual({ host, status })
    }
  })

  it('answers a request without Host, or with two, a JSON 400', async () => {
    for (const hostLines of [
      '',
      'Host: localhost\r\nHost: localhost\r\n',
      'Host: localhost\r\nHost: rebind.attacker.example\r\n',
    ]) {
      const conn = await openConnection(server.url)
      await writeAll(
        conn.socket,
        `GET /__mock/state HTTP/1.1\r\n${hostLines}Connection: close\r\n\r\n`,
      )
      await conn.closed
      const [head = '', body] = conn.received().split('\r\n\r\n')
      expect(head.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request')
      expect(head.toLowerCase()).toContain('content-type: application/json')
      expect(JSON.parse(body ?? '')).toEqual({ code: 400, message: 'Bad request' })
    }
  })

  it('answers an absolute-form target as its path when its authority passes the Host rule', async () => {
    const created = await identify({ host: 'localhost' }, `${server.url}/api/v1/users/identify`)
    expect(created.status).toBe(200)
    expect(JSON.parse(created.text).id).toBe('rebound')
    expect(server.core.requests().at(-1)).toMatchObject({
      path: '/api/v1/users/identify',
      status: 200,
    })
    const health = await sendRaw(server.url, {
      method: 'GET',
      target: 'http://mock.internal/__mock/health?x=1',
      headers: { host: 'localhost' },
    })
    expect(answerOf(health)).toEqual({ status: 200, body: mockHealth() })
    // The authority is what is checked: a loopback Host does not let a foreign target through.
    const foreign = await identify(
      { host: 'localhost' },
      'http://rebind.attacker.example/api/v1/users/identify',
    )
    expect(answerOf(foreign)).toEqual({ status: 403, body: forbidden })
  })

  // A field sent once or repeated is read as Node's `headers` object has it.
  it('reads a header field whatever the case of its name', async () => {
    const answer = await identify({
      AUTHORIZATION: `Bearer ${key}`,
      'CONTENT-TYPE': 'application/json',
    })
    expect(answerOf(answer).status).toBe(200)
  })

  it('keeps the first of two Authorization or Content-Type lines, as Node does', async () => {
    const firstKey = await identify({ authorization: [`Bearer ${key}`, 'Bearer nope'] })
    expect(firstKey.status).toBe(200)
    const secondKey = await identify({ authorization: ['Bearer nope', `Bearer ${key}`] })
    expect(secondKey.status).toBe(401)
    const firstJson = await identify({ 'content-type': ['application/json', 'text/plain'] })
    expect(firstJson.status).toBe(200)
    const secondJson = await identify({ 'content-type': ['text/plain', 'application/json'] })
    expect(answerOf(secondJson)).toEqual({
      status: 400,
      body: { code: 400, message: 'Invalid request parameters' },
    })
  })
})

describe('bound to every address: the same rule', () => {
  const health = (server: RunningServer, host: string) =>
    sendRaw(server.url, { method: 'GET', target: '/__mock/health', headers: { host } })

  // The rule changed from "any Host on 0.0.0.0": a container listens there, and a rebinding page
  // reached it (decisions.md, "The standalone server on a shared machine").
  it('refuses a foreign name on 0.0.0.0 too, and answers IP literals, localhost and the allowed hosts', async () => {
    const open = await startServer({ port: 0, host: '0.0.0.0' })
    const strict = await startServer({ port: 0, host: '0.0.0.0', allowedHosts: ['mock'] })
    try {
      expect(answerOf(await health(open, 'anything.example:1234'))).toEqual({
        status: 403,
        body: forbidden,
      })
      expect(answerOf(await health(open, 'mock:4010'))).toEqual({ status: 403, body: forbidden })
      for (const host of ['10.1.2.3:4010', 'localhost:4010', '127.0.0.1']) {
        expect({ host, status: (await health(open, host)).status }).toEqual({ host, status: 200 })
      }
      expect((await health(strict, 'mock:4010')).status).toBe(200)
      expect((await health(strict, '172.17.0.2:4010')).status).toBe(200)
      expect(answerOf(await health(strict, 'anything.example'))).toEqual({
        status: 403,
        body: forbidden,
      })
    } finally {
      await Promise.all([open.close(), strict.close()])
    }
  })

  it('answers a domain and its subdomains for a leading-dot entry, and every name for any', async () => {
    const domain = await startServer({ port: 0, allowedHosts: ['.Example.Test'] })
    const any = await startServer({ port: 0, allowedHosts: ['any'] })
    try {
      for (const host of ['example.test', 'api.example.test:8080', 'a.b.example.test']) {
        expect({ host, status: (await health(domain, host)).status }).toEqual({ host, status: 200 })
      }
      for (const host of ['notexample.test', 'example.test.attacker.example']) {
        expect({ host, status: (await health(domain, host)).status }).toEqual({ host, status: 403 })
      }
      for (const host of ['rebind.attacker.example', 'mock:4010']) {
        expect({ host, status: (await health(any, host)).status }).toEqual({ host, status: 200 })
      }
    } finally {
      await Promise.all([domain.close(), any.close()])
    }
  })

  it('refuses an allowed host that is not a host name, naming the option', async () => {
    for (const allowedHosts of [['mock.lan:80'], ['http://mock.lan'], ['a b'], ['.'], ['*']]) {
      await expect(startServer({ port: 0, allowedHosts })).rejects.toThrow(
        /^Invalid options: allowedHosts\[0\]: /,
      )
    }
  })
})

describe('cross-site requests to /__mock', () => {
  let server: RunningServer
  let origin: string
  beforeAll(async () => {
    server = await startServer({ port: 0 })
    origin = server.url
  })
  afterAll(() => server.close())

  const reset = (headers: Record<string, string>, body?: string) =>
    sendRaw(server.url, {
      method: 'POST',
      target: '/__mock/reset',
      headers,
      body: body === undefined ? null : new TextEncoder().encode(body),
    })

  it('refuses a foreign Origin or a cross-site or same-site Sec-Fetch-Site with 403, before anything else', async () => {
    const other = `http://127.0.0.1:${Number(new URL(origin).port) + 1}`
    const refused: Array<Record<string, string>> = [
      { origin: other },
      { origin: 'null' },
      { origin: 'http://rebind.attacker.example' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
      { origin, 'sec-fetch-site': 'same-site' },
    ]
    for (const headers of refused) {
      expect({ headers, ...answerOf(await reset({ ...headers, ...json }, '{}')) }).toEqual({
        headers,
        status: 403,
        body: forbidden,
      })
    }
    // Checked before the Content-Type rule: a form's text/plain from another site gets 403.
    const form = await reset({ origin: other, 'content-type': 'text/plain' }, 'a=b')
    expect(answerOf(form)).toEqual({ status: 403, body: forbidden })
  })

  it('refuses a foreign origin before the control token and --no-control are looked at', async () => {
    const token = 'ctl-token'
    const guarded = await startServer({ port: 0, controlToken: token })
    const disabled = await startServer({ port: 0, control: false })
    try {
      const other = 'http://rebind.attacker.example'
      for (const authorization of [undefined, `Bearer ${token}`]) {
        const answer = await sendRaw(guarded.url, {
          method: 'GET',
          target: '/__mock/state',
          headers: { origin: other, ...(authorization && { authorization }) },
        })
        expect(answerOf(answer)).toEqual({ status: 403, body: forbidden })
      }
      const off = await sendRaw(disabled.url, {
        method: 'GET',
        target: '/__mock/state',
        headers: { 'sec-fetch-site': 'cross-site' },
      })
      expect(answerOf(off)).toEqual({ status: 403, body: forbidden })
      // The Content-Type rule comes after the token: a client without it learns nothing more.
      const untokened = await sendRaw(guarded.url, {
        method: 'POST',
        target: '/__mock/reset',
        headers: { 'content-type': 'text/plain' },
      })
      expect(answerOf(untokened)).toEqual({
        status: 401,
        body: { code: 401, message: 'Unauthorized' },
      })
    } finally {
      await Promise.all([guarded.close(), disabled.close()])
    }
  })

  it('answers the server’s own origin and same-origin fetches', async () => {
    expect((await reset({ origin, 'sec-fetch-site': 'same-origin' })).status).toBe(204)
    expect((await reset({ 'sec-fetch-site': 'none' })).status).toBe(204)
  })

  it('refuses a control body without JSON’s Content-Type with 400, queueing no fault', async () => {
    const fault = JSON.stringify({ operation: 'identify', status: 500 })
    for (const headers of [
      { 'content-type': 'text/plain' },
      { 'content-type': 'text/plain;charset=UTF-8' },
      { 'content-type': 'application/x-www-form-urlencoded' },
      { 'content-type': 'multipart/form-data; boundary=x' },
      {},
    ]) {
      const answer = await sendRaw(server.url, {
        method: 'POST',
        target: '/__mock/faults',
        headers,
        body: new TextEncoder().encode(fault),
      })
      expect({ headers, ...answerOf(answer) }).toEqual({
        headers,
        status: 400,
        body: { code: 400, message: expect.stringMatching(/Content-Type: application\/json/) },
      })
    }
    // A Content-Type other than JSON is refused even without a body.
    expect((await reset({ 'content-type': 'text/plain' })).status).toBe(400)
    const key = server.core.credentials[0]?.apiKeys[0] ?? ''
    const identify = await fetch(`${server.url}/api/v1/users/identify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, ...json },
      body: JSON.stringify({ id: 'no-fault', orgId: 'org-1' }),
    })
    expect(identify.status).toBe(200)
    const queued = await sendRaw(server.url, {
      method: 'POST',
      target: '/__mock/faults',
      headers: { 'content-type': 'Application/JSON; charset=utf-8' },
      body: new TextEncoder().encode(fault),
    })
    expect(queued.status).toBe(204)
  })
})

describe('HEAD and Allow', () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer({ port: 0 })
  })
  afterAll(() => server.close())

  it('answers HEAD wherever GET is answered, and lists it in Allow', async () => {
    for (const target of ['/__mock/state', '/__mock/requests', '/__mock/health', '/openapi.json']) {
      const head = await sendRaw(server.url, { method: 'HEAD', target })
      expect({ target, status: head.status, text: head.text }).toEqual({
        target,
        status: 200,
        text: '',
      })
      const post = await sendRaw(server.url, { method: 'POST', target, headers: json })
      expect({ target, status: post.status, allow: post.header('allow') }).toEqual({
        target,
        status: 405,
        allow: 'GET, HEAD',
      })
    }
    const webView = await sendRaw(server.url, { method: 'POST', target: '/webview' })
    expect(webView.header('allow')).toBe('GET, HEAD')
    const reset = await sendRaw(server.url, { method: 'HEAD', target: '/__mock/reset' })
    expect({ status: reset.status, allow: reset.header('allow') }).toEqual({
      status: 405,
      allow: 'POST',
    })
  })
})

describe('CORS', () => {
  const app = 'http://localhost:5173'
  let plain: RunningServer
  let withCors: RunningServer
  let key: string
  beforeAll(async () => {
    plain = await startServer({ port: 0 })
    withCors = await startServer({ port: 0, cors: [app] })
    key = plain.core.credentials[0]?.apiKeys[0] ?? ''
  })
  afterAll(() => Promise.all([plain.close(), withCors.close()]))

  const preflight = (server: RunningServer, origin: string, target = '/api/v1/users/identify') =>
    sendRaw(server.url, {
      method: 'OPTIONS',
      target,
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    })
  const identify = (server: RunningServer, origin: string | string[]) => {
    // Node's header types take one Origin; two lines go out as a list.
    const headers: Record<string, string | string[]> = {
      origin,
      authorization: `Bearer ${key}`,
      ...json,
    }
    return sendRaw(server.url, {
      method: 'POST',
      target: '/api/v1/users/identify',
      headers,
      body: new TextEncoder().encode(JSON.stringify({ id: 'cors', orgId: 'org-1' })),
    })
  }

  it('sends no CORS header by default', async () => {
    const answer = await preflight(plain, app)
    expect(answer.status).toBe(405)
    expect(answer.header('access-control-allow-origin')).toBeNull()
    const call = await identify(plain, app)
    expect(call.status).toBe(200)
    expect(call.header('access-control-allow-origin')).toBeNull()
  })

  it('answers the preflight and the call of an allowed origin, with the route’s methods', async () => {
    const answer = await preflight(withCors, app)
    expect(answer.status).toBe(204)
    expect(answer.header('access-control-allow-origin')).toBe(app)
    expect(answer.header('access-control-allow-methods')).toBe('POST')
    expect(answer.header('access-control-allow-headers')).toBe('authorization, content-type')
    const del = await preflight(withCors, app, '/api/v1/users/org-1/someone')
    expect(del.header('access-control-allow-methods')).toBe('DELETE')
    const call = await identify(withCors, app)
    expect(call.status).toBe(200)
    expect(call.header('access-control-allow-origin')).toBe(app)
    expect(call.header('vary')).toBe('Origin')
  })

  it('joins two Origin lines, as Node does: no CORS for either origin', async () => {
    const call = await identify(withCors, [app, 'http://other.test'])
    expect(call.status).toBe(200)
    expect(call.header('access-control-allow-origin')).toBeNull()
  })

  it('allows no other origin, and never /__mock', async () => {
    for (const origin of ['http://localhost:5174', 'https://localhost:5173', 'null']) {
      const answer = await preflight(withCors, origin)
      expect(answer.header('access-control-allow-origin')).toBeNull()
      expect((await identify(withCors, origin)).header('access-control-allow-origin')).toBeNull()
    }
    const control = await sendRaw(withCors.url, {
      method: 'GET',
      target: '/__mock/state',
      headers: { origin: app },
    })
    expect(answerOf(control)).toEqual({ status: 403, body: forbidden })
    expect(control.header('access-control-allow-origin')).toBeNull()
  })

  it('refuses a CORS entry that is not an origin, naming the option', async () => {
    for (const cors of [['localhost:5173'], ['http://localhost:5173/'], ['*']]) {
      await expect(startServer({ port: 0, cors })).rejects.toThrow(/^Invalid options: cors\[0\]: /)
    }
  })
})

describe('identify-api-mock serve --allowed-host --cors', () => {
  it('answers the allowed host and the CORS origin given on the command line', async () => {
    const app = 'http://localhost:5173'
    const { cli, url } = await startCli(['--allowed-host', 'mock.lan', '--cors', app])
    try {
      const health = (host: string) =>
        sendRaw(url, { method: 'GET', target: '/__mock/health', headers: { host } })
      expect((await health('mock.lan:4010')).status).toBe(200)
      expect((await health('rebind.attacker.example')).status).toBe(403)
      const preflight = await sendRaw(url, {
        method: 'OPTIONS',
        target: '/api/v1/users/identify',
        headers: { origin: app, 'access-control-request-method': 'POST' },
      })
      expect([preflight.status, preflight.header('access-control-allow-origin')]).toEqual([
        204,
        app,
      ])
    } finally {
      cli.child.kill('SIGKILL')
    }
  }, 30_000)

  it('exits 1 with one line for an allowed host or an origin it cannot use', async () => {
    await expectRefusal(
      ['serve', '--port', '0', '--cors', 'localhost:5173'],
      /cors\[0\]: expected an origin/,
    )
    await expectRefusal(
      ['serve', '--port', '0', '--allowed-host', 'http://mock.lan'],
      /allowedHosts\[0\]: expected a host name/,
    )
  }, 30_000)
})
