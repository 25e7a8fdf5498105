import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { type RunningServer, startServer } from '../../src/server/server.ts'
import { openConnection, type RawConnection, sleep, writeAll } from '../support/raw-socket.ts'

/**
 * The standalone server gives no memory to strangers ("Limits of a running mock"): a 401 never
 * costs a body, connections and the bodies being read at once are capped (503 past either), and
 * the state is written as it is read, never as one string.
 */

const unavailable = JSON.stringify({ code: 503, message: 'Service unavailable' })
const mib = 1024 * 1024

/** The status line, the head and the body of the first response on a connection. */
function firstResponse(received: string) {
  const [head = '', ...rest] = received.split('\r\n\r\n')
  return {
    statusLine: head.split('\r\n')[0],
    head: head.toLowerCase(),
    body: rest.join('\r\n\r\n'),
  }
}

const identifyHead = (key: string, length: number) =>
  `POST /api/v1/users/identify HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\n` +
  `Content-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`

let server: RunningServer
let key = ''
const open: RawConnection[] = []
beforeAll(async () => {
  server = await startServer({ port: 0, maxConnections: 80 })
  key = server.core.credentials[0]?.apiKeys[0] ?? ''
})
afterAll(async () => {
  for (const conn of open) conn.socket.destroy()
  await server.close()
})

async function connect(): Promise<RawConnection> {
  const conn = await openConnection(server.url)
  open.push(conn)
  return conn
}

/** Closes every connection the test opened, and waits until the server has seen them go. */
async function closeAll(): Promise<void> {
  for (const conn of open.splice(0)) conn.socket.destroy()
  await sleep(100)
}

describe('a stranger', () => {
  /**
   * Sends `head` announcing 1 MiB, then all of the body but 100 bytes, then nothing: the 401 must
   * come without waiting for the rest, and the connection must close.
   */
  async function expectUnauthorizedBeforeTheBody(conn: RawConnection, head: string) {
    await writeAll(conn.socket, head)
    await writeAll(conn.socket, Buffer.alloc(mib - 100, 0x20))
    await conn.waitFor(/\r\n\r\n\{.*\}/)
    const response = firstResponse(conn.received())
    expect(response.statusLine).toBe('HTTP/1.1 401 Unauthorized')
    expect(response.head).toContain('connection: close')
    expect(response.body).toBe(JSON.stringify({ code: 401, message: 'Unauthorized' }))
    await conn.closed
  }

  it('gets 401 before sending the body it announced, and the connection is closed', async () => {
    await expectUnauthorizedBeforeTheBody(await connect(), identifyHead('not-a-key', mib))
    await closeAll()
  }, 30_000)

  it('gets 401 from a control endpoint without its token before sending the body it announced', async () => {
    const guarded = await startServer({ port: 0, controlToken: 'let-me-in' })
    try {
      const conn = await openConnection(guarded.url)
      open.push(conn)
      await expectUnauthorizedBeforeTheBody(
        conn,
        'POST /__mock/faults HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer wrong\r\n' +
          `Content-Type: application/json\r\nContent-Length: ${mib}\r\n\r\n`,
      )
    } finally {
      await closeAll()
      await guarded.close()
    }
  }, 30_000)
})

describe('connections and bodies', () => {
  it('closes the connection idle the longest for one past maxConnections, which is served', async () => {
    const idle: RawConnection[] = []
    for (let i = 0; i < 80; i++) idle.push(await connect())
    const [oldest, second] = idle as [RawConnection, RawConnection]
    // The oldest connection asks and is answered: idle again, but for less long than the others.
    const health = 'GET /__mock/health HTTP/1.1\r\nHost: localhost\r\n\r\n'
    await writeAll(oldest.socket, health)
    await oldest.waitFor(/^HTTP\/1\.1 200 OK\r\n/)
    await sleep(200)
    const extra = await connect()
    await writeAll(extra.socket, health)
    await extra.waitFor(/^HTTP\/1\.1 200 OK\r\n/)
    await second.closed
    expect(idle.filter((conn) => conn.isClosed())).toEqual([second])
    await closeAll()
  })

  it('answers 503 at once past maxConnections when every connection is held, each source within its share', async () => {
    // Four tenants each hold their share (a quarter of 80): each connection sends its head and
    // part of a small body, a request under way, not idle.
    const keys = [key, server.core.credentials[1]?.apiKeys[0] ?? '']
    for (const _ of [1, 2]) keys.push((await server.core.organisations.create()).apiKey)
    for (const k of keys) {
      for (let i = 0; i < 20; i++) {
        const conn = await connect()
        await writeAll(conn.socket, `${identifyHead(k, 100)}{"id":`)
      }
    }
    await sleep(200)
    const extra = await connect()
    await writeAll(extra.socket, 'GET /__mock/health HTTP/1.1\r\nHost: localhost\r\n\r\n')
    await extra.closed
    const response = firstResponse(extra.received())
    expect(response.statusLine).toBe('HTTP/1.1 503 Service Unavailable')
    expect(response.body).toBe(unavailable)
    await closeAll()
    expect((await fetch(`${server.url}/__mock/health`)).status).toBe(200)
  })

  /** Opens a connection that sends `head` and the start of the 1 MiB body it announces. */
  async function slowBody(head: string): Promise<RawConnection> {
    const conn = await connect()
    await writeAll(conn.socket, `${head}{"id":`)
    return conn
  }

  /** A tenant's identify, answered while the floods hold what they hold. */
  async function identify(apiKey: string, orgId: string | undefined) {
    return fetch(`${server.url}/api/v1/users/identify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'during-the-flood', orgId }),
    })
  }

  const controlHead = (length: number) =>
    'POST /__mock/faults HTTP/1.1\r\nHost: localhost\r\n' +
    `Content-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`

  it.each([
    ["one tenant's key", () => identifyHead(key, mib)],
    ['the controls without a token', () => controlHead(mib)],
  ])(
    'holds at most 16 MiB of slow bodies sent with %s: the rest get 503, another tenant is answered',
    async (_, head) => {
      const flood: RawConnection[] = []
      for (let i = 0; i < 64; i++) flood.push(await slowBody(head()))
      await sleep(500)
      // A quarter of the budget is held; every body past it was refused at once.
      const refused = flood.filter((conn) => conn.isClosed())
      expect(refused).toHaveLength(48)
      for (const conn of refused) expect(firstResponse(conn.received()).body).toBe(unavailable)
      const other = server.core.credentials[1]
      const answer = await identify(other?.apiKeys[0] ?? '', other?.orgId)
      expect(answer.status).toBe(200)
      // The 16 held are still waiting for their bodies.
      expect(flood.filter((conn) => !conn.isClosed())).toHaveLength(16)
      await closeAll()
    },
  )

  it('holds at most 64 MiB of bodies being read in all: a slow body past it gets 503 at once', async () => {
    // Four sources, each holding its share: three tenants' keys and the controls without a token.
    const keys = [key, server.core.credentials[1]?.apiKeys[0] ?? '']
    keys.push((await server.core.organisations.create()).apiKey)
    const heads = [...keys.map((k) => identifyHead(k, mib)), controlHead(mib)]
    for (const head of heads) for (let i = 0; i < 16; i++) await slowBody(head)
    await sleep(500)
    const fifth = (await server.core.organisations.create()).apiKey
    const extra = await slowBody(identifyHead(fifth, mib))
    await extra.closed
    const response = firstResponse(extra.received())
    expect(response.statusLine).toBe('HTTP/1.1 503 Service Unavailable')
    expect(response.body).toBe(unavailable)
    // Once they are gone, the budget is free again.
    await closeAll()
    const answer = await identify(key, server.core.credentials[0]?.orgId)
    expect(answer.status).toBe(200)
  })
})

describe('idle connections', () => {
  it('1,001 idle sockets on the default cap of 1,000 lock nobody out: a call after them is answered', async () => {
    const defaults = await startServer({ port: 0 })
    const idle: RawConnection[] = []
    try {
      for (let i = 0; i < 1001; i++) idle.push(await openConnection(defaults.url))
      const answer = await fetch(`${defaults.url}/api/v1/users/identify`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${defaults.core.credentials[0]?.apiKeys[0]}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ id: 'after-the-idle', orgId: defaults.core.credentials[0]?.orgId }),
      })
      expect(answer.status).toBe(200)
      // The ones idle the longest made room, the first to go first.
      await idle[1]?.closed
      expect(idle[0]?.isClosed()).toBe(true)
      expect(idle.at(-1)?.isClosed()).toBe(false)
    } finally {
      for (const conn of idle) conn.socket.destroy()
      await defaults.close()
    }
  }, 30_000)
})

describe('requests that read no body', () => {
  it('health and the inspector files answer at once, holding nothing of the budget of bodies', async () => {
    // 64 of them announce 1 MiB each and send a little: read, they would take all 64 MiB.
    const paths = ['/__mock/health', '/__mock/', '/__mock/inspector.css', '/__mock/inspector.js']
    const flood: RawConnection[] = []
    for (let i = 0; i < 64; i++) {
      const conn = await connect()
      await writeAll(
        conn.socket,
        `GET ${paths[i % paths.length]} HTTP/1.1\r\nHost: localhost\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${mib}\r\n\r\n{"x":`,
      )
      flood.push(conn)
    }
    for (const conn of flood) {
      await conn.waitFor(/^HTTP\/1\.1 200 OK\r\n/)
      expect(firstResponse(conn.received()).head).toContain('connection: close')
    }
    // A tenant's call with a body is read meanwhile, not refused for want of budget.
    const answer = await fetch(`${server.url}/api/v1/users/identify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'during', orgId: server.core.credentials[0]?.orgId }),
    })
    expect(answer.status).toBe(200)
    await closeAll()
  })
})

describe('GET /__mock/state', () => {
  it('is written in pieces as it is read, while other requests are answered', async () => {
    const orgId = server.core.credentials[0]?.orgId
    const firstName = 'f'.repeat(1000)
    for (let i = 0; i < 300; i++) {
      const answer = await fetch(`${server.url}/api/v1/users/identify`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ id: `big-${i}`, orgId, data: { firstName, lastName: firstName } }),
      })
      expect(answer.status).toBe(200)
    }
    // A client that asks for the state and reads none of it.
    const reader = await connect()
    reader.socket.pause()
    await writeAll(reader.socket, 'GET /__mock/state HTTP/1.1\r\nHost: localhost\r\n\r\n')
    await sleep(100)
    expect((await fetch(`${server.url}/__mock/health`)).status).toBe(200)
    reader.socket.resume()
    await reader.waitFor(/\r\n0\r\n\r\n$/)
    const response = firstResponse(reader.received())
    expect(response.head).toContain('transfer-encoding: chunked')
    expect(response.head).not.toContain('content-length')
    const json = response.body.replace(/(?:^|\r\n)[0-9a-f]+\r\n/g, '')
    expect(JSON.parse(Buffer.from(json, 'latin1').toString('utf8'))).toEqual(
      await server.core.state(),
    )
    await closeAll()
  }, 30_000)

  it('makes none of its pieces for a HEAD', async () => {
    let made = 0
    const stateJson = vi.spyOn(server.core, 'stateJson').mockImplementation(async () =>
      (async function* () {
        made++
        yield '{}'
      })(),
    )
    try {
      const head = await fetch(`${server.url}/__mock/state`, { method: 'HEAD' })
      expect(head.status).toBe(200)
      expect(head.headers.get('content-type')).toBe('application/json')
      expect(await head.text()).toBe('')
      expect(made).toBe(0)
      const get = await fetch(`${server.url}/__mock/state`)
      expect(await get.text()).toBe('{}')
      expect(made).toBe(1)
    } finally {
      stateJson.mockRestore()
    }
  })
})
