import { afterEach, describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from '../../src/server/server.ts'
import { sendRaw } from '../support/http-client.ts'
import { openConnection, type RawConnection } from '../support/raw-socket.ts'

// One tenant holds every connection the server has (hang failures, delayed calls, slow bodies
// with and without a credential); another tenant's identify and the health check are still
// answered, every time, and what gives way is the holder's oldest connection, answered 503.

/** The issue's bound: a correctness check (an answer at all), far above any answer's time. */
const answeredWithinMs = 1000

const holder = { orgId: 'holder', apiKeys: ['sk_test_holder'] }
const neighbour = { orgId: 'neighbour', apiKeys: ['sk_test_neighbour'] }
const controlToken = 'control-secret'

let server: RunningServer | undefined
let held: RawConnection[] = []

afterEach(async () => {
  for (const connection of held) connection.socket.destroy()
  held = []
  await server?.close()
  server = undefined
})

const identifyBody = (orgId: string, id: string) => JSON.stringify({ orgId, id })

/** What the holder sends on each of its connections, once the server is set up for it. */
interface Attack {
  name: string
  controlToken?: string
  arm(running: RunningServer): Promise<void>
  request(): string
}

const identifyHead = (length: number, key = 'sk_test_holder') =>
  `POST /api/v1/users/identify HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`

const wholeIdentify = () => {
  const body = identifyBody('holder', 'ada')
  return identifyHead(Buffer.byteLength(body)) + body
}

const slowControlBody = (token?: string) =>
  `POST /__mock/faults HTTP/1.1\r\nHost: 127.0.0.1\r\n${token ? `Authorization: Bearer ${token}\r\n` : ''}Content-Type: application/json\r\nContent-Length: 10\r\n\r\n{`

const attacks: Attack[] = [
  {
    name: 'hang failures',
    arm: async (running) =>
      running.core.failNext('identify', {
        kind: 'hang',
        delayMs: 600_000,
        count: 1_000_000,
        orgId: 'holder',
      }),
    request: wholeIdentify,
  },
  {
    name: 'calls delayed by its latency',
    arm: (running) => running.core.organisations.setLatency('holder', { fixedMs: 600_000 }),
    request: wholeIdentify,
  },
  {
    name: 'slow identify bodies sent with its API key',
    arm: async () => {},
    // One byte of a body of 100, then nothing.
    request: () => `${identifyHead(100)}{`,
  },
  {
    name: 'slow control bodies sent with no credential',
    arm: async () => {},
    request: () => slowControlBody(),
  },
  {
    name: 'slow control bodies sent with the control token',
    controlToken,
    arm: async () => {},
    request: () => slowControlBody(controlToken),
  },
]

/** Opens `count` connections of the holder, each sending `request()`, and waits for them to be held. */
async function hold(
  url: string,
  count: number,
  request: () => string,
  settleMs = 300,
): Promise<void> {
  for (let i = 0; i < count; i++) {
    const connection = await openConnection(url)
    connection.socket.write(request())
    held.push(connection)
  }
  // The server has read each request a moment after its bytes came: the last few get that moment.
  await new Promise((resolve) => setTimeout(resolve, settleMs))
}

/** A request of the neighbour on a connection of its own: its status and how long it took. */
async function timed(answer: Promise<{ status: number }>): Promise<{ status: number; ms: number }> {
  const started = performance.now()
  const { status } = await answer
  return { status, ms: performance.now() - started }
}

/**
 * The neighbour's identify and health check, `rounds` times, each on a connection of its own
 * (closed after its answer); after each, `refill` takes the room it left, so that every call
 * finds the server full.
 */
async function neighbourCalls(
  url: string,
  rounds: number,
  refill: () => Promise<void>,
): Promise<{ status: number; ms: number }[]> {
  const seen: { status: number; ms: number }[] = []
  for (let round = 0; round < rounds; round++) {
    const body = Buffer.from(identifyBody('neighbour', `user-${round}`))
    seen.push(
      await timed(
        sendRaw(url, {
          method: 'POST',
          target: '/api/v1/users/identify',
          headers: {
            host: '127.0.0.1',
            authorization: 'Bearer sk_test_neighbour',
            'content-type': 'application/json',
          },
          body,
        }),
      ),
    )
    await refill()
    seen.push(
      await timed(
        sendRaw(url, { method: 'GET', target: '/__mock/health', headers: { host: '127.0.0.1' } }),
      ),
    )
    await refill()
  }
  return seen
}

describe('one tenant holding every connection of the server', () => {
  describe.each(attacks)('with $name', (attack) => {
    it("another tenant's identify and /__mock/health are answered 200, every time; the holder's oldest connections give way with 503", async () => {
      const maxConnections = 40
      server = await startServer({
        port: 0,
        maxConnections,
        organisations: [holder, neighbour],
        ...(attack.controlToken && { controlToken: attack.controlToken }),
      })
      await attack.arm(server)
      // More than the server holds: past the cap, the holder only pushes out its own.
      await hold(server.url, maxConnections + 10, attack.request)
      const { url } = server
      const seen = await neighbourCalls(url, 5, () => hold(url, 1, attack.request, 20))
      for (const { status, ms } of seen) {
        expect(status).toBe(200)
        expect(ms).toBeLessThan(answeredWithinMs)
      }
      // Each connection past the cap made room, the neighbour's included: the holder's oldest
      // closed, answered 503 (a call under way that had no answer yet).
      const closed = held.filter((connection) => connection.isClosed())
      expect(closed.length).toBeGreaterThanOrEqual(10 + seen.length)
      const given503 = held.filter((c) => c.received().startsWith('HTTP/1.1 503'))
      expect(given503.length).toBeGreaterThanOrEqual(10 + seen.length)
      for (const connection of given503) {
        expect(connection.received()).toContain('{"code":503,"message":"Service unavailable"}')
      }
      // The newest connections of the holder are still held: it keeps what others leave it.
      expect(held.at(-1)?.isClosed()).toBe(false)
    })
  })

  it('at the default 1,000 connections, with hang failures', async () => {
    server = await startServer({ port: 0, organisations: [holder, neighbour] })
    await attacks[0]?.arm(server)
    await hold(server.url, 1010, wholeIdentify)
    const { url } = server
    const seen = await neighbourCalls(url, 5, () => hold(url, 1, wholeIdentify, 20))
    for (const { status, ms } of seen) {
      expect(status).toBe(200)
      expect(ms).toBeLessThan(answeredWithinMs)
    }
    expect(held.filter((c) => c.received().startsWith('HTTP/1.1 503')).length).toBeGreaterThan(0)
  }, 60_000)

  it('a source within its share keeps its connections while another floods the server', async () => {
    const maxConnections = 40
    server = await startServer({ port: 0, maxConnections, organisations: [holder, neighbour] })
    // The neighbour holds 5 connections (under its share of 10), delayed by its latency.
    await server.core.organisations.setLatency('neighbour', { fixedMs: 600_000 })
    const body = identifyBody('neighbour', 'grace')
    const own: RawConnection[] = []
    for (let i = 0; i < 5; i++) {
      const connection = await openConnection(server.url)
      connection.socket.write(identifyHead(Buffer.byteLength(body), 'sk_test_neighbour') + body)
      own.push(connection)
      held.push(connection)
    }
    await new Promise((resolve) => setTimeout(resolve, 200))
    await attacks[0]?.arm(server)
    await hold(server.url, maxConnections * 2, wholeIdentify)
    for (const connection of own) expect(connection.isClosed()).toBe(false)
  })
})
