import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from '../../src/server/server.ts'
import { expectError } from '../support/expect-body.ts'
import { openConnection, sleep, writeAll } from '../support/raw-socket.ts'

/**
 * The standalone server under load and abuse: a body over the limit is refused while it streams
 * in, slow clients are cut off, keep-alive connections do not live forever, the journal stays
 * bounded, and whatever the client does, the answer is JSON and the server keeps answering.
 */

const errorBody = (code: number, message: string) => JSON.stringify({ code, message })

/** The status line and the body of the first response on a connection. */
function firstResponse(received: string) {
  const [head = '', ...rest] = received.split('\r\n\r\n')
  return { statusLine: head.split('\r\n')[0], head, body: rest.join('\r\n\r\n') }
}

describe('request body limit', () => {
  let server: RunningServer
  let key: string
  beforeAll(async () => {
    server = await startServer({ port: 0 })
    key = server.core.credentials[0]?.apiKeys[0] ?? ''
  })
  afterAll(() => server.close())

  const head = (framing: string) =>
    `POST /api/v1/users/identify HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\n` +
    `Content-Type: application/json\r\n${framing}\r\n\r\n`

  it('answers 400 to a 100 MB upload streamed slowly, long before it is sent, and cuts it off', async () => {
    const seeded = await server.core.state()
    const conn = await openConnection(server.url)
    await writeAll(conn.socket, head('Transfer-Encoding: chunked'))
    const total = 100 * 1024 * 1024
    const chunk = Buffer.alloc(64 * 1024, 0x20)
    const framed = Buffer.concat([
      Buffer.from(`${chunk.length.toString(16)}\r\n`),
      chunk,
      Buffer.from('\r\n'),
    ])
    let sent = 0
    let sentWhenAnswered: number | undefined
    while (sent < total && !conn.isClosed()) {
      if (sentWhenAnswered === undefined && conn.received().includes('\r\n\r\n')) {
        sentWhenAnswered = sent
      }
      if (!(await writeAll(conn.socket, framed))) break
      sent += chunk.length
      await sleep(2)
    }
    await conn.closed
    const response = firstResponse(conn.received())
    expect(response.statusLine).toBe('HTTP/1.1 400 Bad Request')
    expect(response.head.toLowerCase()).toContain('connection: close')
    expect(response.body).toBe(errorBody(400, 'Invalid request parameters'))
    // Answered just past the 1 MiB limit, and cut off well before the upload could finish.
    expect(sentWhenAnswered).toBeLessThanOrEqual(4 * 1024 * 1024)
    expect(sent).toBeLessThan(total / 2)
    expect(await server.core.state()).toEqual(seeded)
    expect((await fetch(`${server.url}/__mock/health`)).status).toBe(200)
  }, 30_000)

  it('answers 400 at once to a Content-Length over the limit, before a byte of the body', async () => {
    const conn = await openConnection(server.url)
    await writeAll(conn.socket, head(`Content-Length: ${100 * 1024 * 1024}`))
    await conn.waitFor(/\r\n\r\n\{.*\}/)
    const response = firstResponse(conn.received())
    expect(response.statusLine).toBe('HTTP/1.1 400 Bad Request')
    expect(response.body).toBe(errorBody(400, 'Invalid request parameters'))
    await conn.closed
  })

  it('still answers a body of exactly 1 MiB, and closes nothing', async () => {
    // The fields are bounded (1,024 characters): JSON whitespace fills the rest.
    const fields = JSON.stringify({ id: 'x'.repeat(1024), orgId: 'org-1' })
    const body = `${fields.slice(0, -1)}${' '.repeat(1024 * 1024 - fields.length)}}`
    expect(Buffer.byteLength(body)).toBe(1024 * 1024)
    const res = await fetch(`${server.url}/api/v1/users/identify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body,
    })
    expect(res.status).toBe(200)
    expect(res.headers.get('connection')).not.toBe('close')
  })
})

describe('timeouts', () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer({ port: 0, headersTimeoutMs: 300, requestTimeoutMs: 600 })
  })
  afterAll(() => server.close())

  /** Sends `data` a byte at a time, one every `gapMs`, until done or the server closes. */
  async function trickle(url: string, prefix: string, data: string, gapMs: number) {
    const conn = await openConnection(url)
    const started = performance.now()
    await writeAll(conn.socket, prefix)
    let sent = 0
    for (const byte of data) {
      if (conn.isClosed() || !(await writeAll(conn.socket, byte))) break
      sent++
      await sleep(gapMs)
    }
    await conn.closed
    return { conn, sent, elapsed: performance.now() - started }
  }

  it('answers 408 and closes the connection of a client sending its headers a byte at a time', async () => {
    const headers = `GET /__mock/health HTTP/1.1\r\nHost: localhost\r\nX-Slow: ${'a'.repeat(200)}\r\n\r\n`
    const { conn, sent, elapsed } = await trickle(server.url, '', headers, 25)
    expect(firstResponse(conn.received()).statusLine).toBe('HTTP/1.1 408 Request Timeout')
    expect(firstResponse(conn.received()).body).toBe(errorBody(408, 'Request timeout'))
    expect(sent).toBeLessThan(headers.length)
    expect(elapsed).toBeGreaterThanOrEqual(290)
  })

  it('closes a connection that never sends a byte', async () => {
    const conn = await openConnection(server.url)
    const started = performance.now()
    await conn.closed
    expect(firstResponse(conn.received()).body).toBe(errorBody(408, 'Request timeout'))
    expect(performance.now() - started).toBeGreaterThanOrEqual(290)
  })

  it('answers 408 to a client sending its body a byte at a time, and changes nothing', async () => {
    const seeded = await server.core.state()
    const key = server.core.credentials[0]?.apiKeys[0] ?? ''
    const body = JSON.stringify({
      id: 'slow-body',
      orgId: 'org-1',
      data: { firstName: 'x'.repeat(100) },
    })
    const head =
      `POST /api/v1/users/identify HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`
    const { conn, sent, elapsed } = await trickle(server.url, head, body, 25)
    expect(firstResponse(conn.received()).statusLine).toBe('HTTP/1.1 408 Request Timeout')
    expect(sent).toBeLessThan(body.length)
    expect(elapsed).toBeGreaterThanOrEqual(590)
    expect(await server.core.state()).toEqual(seeded)
    expect(server.core.requests()).toEqual([])
  })

  it('times the request, not the answer: a delayed answer outlasts the request timeout', async () => {
    server.core.failNext('identify', { status: 500, delayMs: 900 })
    const key = server.core.credentials[0]?.apiKeys[0]
    const res = await fetch(`${server.url}/api/v1/users/identify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
    })
    await expectError(res, 500, 'Internal server error')
  })

  it('takes a 10 s header timeout, a 30 s request timeout and a 5 s keep-alive by default', async () => {
    const defaults = await startServer({ port: 0 })
    try {
      expect(defaults.server.headersTimeout).toBe(10_000)
      expect(defaults.server.requestTimeout).toBe(30_000)
      expect(defaults.server.keepAliveTimeout).toBe(5_000)
    } finally {
      await defaults.close()
    }
  })

  it('refuses limits that make no sense, naming the option', async () => {
    await expect(startServer({ port: 0, headersTimeoutMs: 0 })).rejects.toThrow(
      /^Invalid options: headersTimeoutMs/,
    )
    await expect(
      startServer({ port: 0, headersTimeoutMs: 5000, requestTimeoutMs: 1000 }),
    ).rejects.toThrow(/headersTimeoutMs: must not be longer than requestTimeoutMs/)
    await expect(startServer({ port: 0, maxRequestsPerSocket: -1 })).rejects.toThrow(
      /maxRequestsPerSocket/,
    )
  })
})

describe('keep-alive limits', () => {
  const request = 'GET /__mock/health HTTP/1.1\r\nHost: localhost\r\n\r\n'

  it('closes an idle keep-alive connection after keepAliveTimeoutMs', async () => {
    const server = await startServer({ port: 0, keepAliveTimeoutMs: 200 })
    try {
      const conn = await openConnection(server.url)
      await writeAll(conn.socket, request)
      await conn.waitFor(/\{"status":"ok","name":"identify-api-mock"/)
      const answered = performance.now()
      expect(conn.received()).toMatch(/connection: keep-alive/i)
      await conn.closed
      expect(performance.now() - answered).toBeGreaterThanOrEqual(190)
      expect(conn.received().match(/HTTP\/1\.1/g)).toHaveLength(1)
    } finally {
      await server.close()
    }
  })

  it('closes a connection after 1,000 requests by default, answering each of them', async () => {
    const server = await startServer({ port: 0 })
    try {
      const conn = await openConnection(server.url)
      await writeAll(conn.socket, request.repeat(1001))
      await conn.closed
      const answers = conn.received().split('HTTP/1.1 ').slice(1)
      expect(answers).toHaveLength(1000)
      expect(answers.every((a) => a.startsWith('200 OK'))).toBe(true)
      expect(answers[998]).toMatch(/connection: keep-alive/i)
      expect(answers[999]).toMatch(/connection: close/i)
    } finally {
      await server.close()
    }
  })

  it('closes a connection after maxRequestsPerSocket requests', async () => {
    const server = await startServer({ port: 0, maxRequestsPerSocket: 2 })
    try {
      const conn = await openConnection(server.url)
      await writeAll(conn.socket, request)
      await conn.waitFor(/\{"status":"ok","name":"identify-api-mock"/)
      expect(conn.received()).toMatch(/connection: keep-alive/i)
      await writeAll(conn.socket, request)
      await conn.waitFor(
        /\{"status":"ok","name":"identify-api-mock"[\s\S]*\{"status":"ok","name":"identify-api-mock"/,
      )
      await conn.closed
      const second = conn.received().split('HTTP/1.1 ')[2] ?? ''
      expect(second).toMatch(/^200 OK/)
      expect(second).toMatch(/connection: close/i)
    } finally {
      await server.close()
    }
  })
})

describe('requests Node refuses, answered in JSON', () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer({ port: 0 })
  })
  afterAll(() => server.close())

  const cases: Array<[string, string, string, string]> = [
    [
      'a request that is not HTTP',
      'NOT HTTP\r\n\r\n',
      'HTTP/1.1 400 Bad Request',
      errorBody(400, 'Bad request'),
    ],
    [
      'an unknown method',
      'BREW /api/v1/users/identify HTTP/1.1\r\nHost: localhost\r\n\r\n',
      'HTTP/1.1 400 Bad Request',
      errorBody(400, 'Bad request'),
    ],
    [
      'the HTTP/2 preface',
      'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n',
      'HTTP/1.1 400 Bad Request',
      errorBody(400, 'Bad request'),
    ],
    [
      'headers over 16 KiB',
      `GET /api/v1/users/identify HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(16_500)}\r\n\r\n`,
      'HTTP/1.1 431 Request Header Fields Too Large',
      errorBody(431, 'Request header fields too large'),
    ],
    [
      'CONNECT',
      'CONNECT example.test:443 HTTP/1.1\r\nHost: localhost\r\n\r\n',
      'HTTP/1.1 404 Not Found',
      errorBody(404, 'Not found'),
    ],
    [
      'an expectation other than 100-continue',
      'POST /api/v1/users/identify HTTP/1.1\r\nHost: localhost\r\nExpect: teapot\r\nContent-Length: 0\r\n\r\n',
      'HTTP/1.1 417 Expectation Failed',
      errorBody(417, 'Expectation failed'),
    ],
  ]
  for (const [what, raw, statusLine, body] of cases) {
    it(`answers ${what} with a JSON error, closes, and keeps answering`, async () => {
      const conn = await openConnection(server.url)
      await writeAll(conn.socket, raw)
      await conn.closed
      const response = firstResponse(conn.received())
      expect(response.statusLine).toBe(statusLine)
      expect(response.head.toLowerCase()).toContain('content-type: application/json')
      expect(response.body).toBe(body)
      expect((await fetch(`${server.url}/__mock/health`)).status).toBe(200)
    })
  }

  it('accepts headers just under 16 KiB', async () => {
    const conn = await openConnection(server.url)
    await writeAll(
      conn.socket,
      `GET /__mock/health HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(15 * 1024)}\r\nConnection: close\r\n\r\n`,
    )
    await conn.closed
    expect(firstResponse(conn.received()).statusLine).toBe('HTTP/1.1 200 OK')
  })

  it('answers a client that sends Expect: 100-continue as usual', async () => {
    const key = server.core.credentials[0]?.apiKeys[0] ?? ''
    const body = JSON.stringify({ id: 'continue', orgId: 'org-1' })
    const conn = await openConnection(server.url)
    await writeAll(
      conn.socket,
      `POST /api/v1/users/identify HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`,
    )
    await conn.waitFor(/^HTTP\/1\.1 100 Continue\r\n\r\n/)
    await writeAll(conn.socket, body)
    await conn.waitFor(/HTTP\/1\.1 200 OK/)
    conn.socket.destroy()
  })
})

describe('the journal', () => {
  it('keeps the newest journalSize calls, however many there were', async () => {
    const server = await startServer({ port: 0, journalSize: 3 })
    try {
      for (let i = 0; i < 8; i++) {
        await expectError(
          await fetch(`${server.url}/api/v1/users/org-1/u${i}`, { method: 'DELETE' }),
          401,
          'Unauthorized',
        )
      }
      const journal = await (await fetch(`${server.url}/__mock/requests`)).json()
      expect(journal.map((e: { path: string }) => e.path)).toEqual([
        '/api/v1/users/org-1/u5',
        '/api/v1/users/org-1/u6',
        '/api/v1/users/org-1/u7',
      ])
    } finally {
      await server.close()
    }
  })
})
