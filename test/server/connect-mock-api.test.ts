import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectMockApi, MockApiClientError } from '../../src/client/connect-mock-api.ts'
import { ApiError } from '../../src/root/index.ts'
import { type RunningServer, startServer } from '../../src/server/server.ts'

/**
 * The mock-wide controls of `connectMockApi` against the server (the tenant handles have their
 * own suite, run on three transports): each answers as the in-process control does, and an error
 * answer rejects as an `ApiError` with its status.
 */
describe('connectMockApi against the server', () => {
  const token = 'client-control-token'
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer({ port: 0, controlToken: token, webhookRetrySchedule: [60_000] })
  })
  afterAll(() => server.close())

  it('sends the control token, and rejects without it as ApiError 401', async () => {
    await expect(connectMockApi(server.url).state()).rejects.toMatchObject({
      constructor: ApiError,
      status: 401,
      message: 'Unauthorized',
    })
    await expect(connectMockApi(`${server.url}/`, { controlToken: token }).ready).resolves.toBe(
      undefined,
    )
  })

  it('queues, lists and refuses faults; reads the state, the journal and the calls; resets', async () => {
    const api = connectMockApi(server.url, { controlToken: token })
    const [org] = await api.credentials
    expect(org).toEqual(server.core.credentials[0])
    await api.failNext('delete', { status: 404, count: 2 })
    expect(await api.queuedFaults()).toEqual(server.core.queuedFaults())
    const refused = await api.failNext('delete', { status: 418 }).catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(ApiError)
    expect(refused).toMatchObject({ status: 400, message: expect.stringMatching(/status/) })

    const answer = await fetch(`${server.url}/api/v1/users/${org?.orgId}/nobody`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${org?.apiKeys[0]}` },
    })
    expect(answer.status).toBe(404)
    expect(await api.calls('delete')).toEqual(server.core.calls('delete'))
    expect(await api.requests({ orgId: org?.orgId })).toEqual(
      server.core.requests({ orgId: org?.orgId }),
    )
    expect(await api.state()).toEqual(await server.core.state())

    await api.reset()
    expect(await api.calls()).toEqual([])
    expect(await api.queuedFaults()).toEqual([])
  })

  it('adds, lists and removes webhook endpoints, and raises events', async () => {
    const api = connectMockApi(server.url, { controlToken: token })
    const endpoint = await api.webhooks.add({ url: 'http://127.0.0.1:9/hooks' })
    expect(endpoint.secret).toMatch(/^whsec_/)
    expect(await api.webhooks.list()).toEqual([
      { id: endpoint.id, url: endpoint.url, events: endpoint.events },
    ])
    const [org] = await api.credentials
    const user = server.core.db.users.findFirst((q) => q.where({ orgId: org?.orgId }))
    const event = await api.events.raise({
      type: 'notifications.sent',
      orgId: org?.orgId ?? '',
      id: user?.id ?? '',
    })
    expect(event.id).toMatch(/^msg_/)
    expect((await api.webhooks.deliveries()).map((d) => d.id)).toEqual([event.id])
    await expect(
      api.events.raise({ type: 'notifications.sent', orgId: org?.orgId ?? '', id: 'nobody' }),
    ).rejects.toMatchObject({ status: 404, message: 'User not found' })
    expect(await api.webhooks.remove(endpoint.id)).toBe(true)
    expect(await api.webhooks.remove(endpoint.id)).toBe(false)
  })
})

describe('connectMockApi when the answer is not the mock’s', () => {
  /** A server on a free port that answers every request with `answer` (or never, without one). */
  async function stranger(answer?: (res: ServerResponse) => void) {
    const held: ServerResponse[] = []
    const server = createServer((_req, res) => (answer ? answer(res) : held.push(res)))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as AddressInfo
    return {
      url: `http://127.0.0.1:${port}`,
      close: () => {
        for (const res of held) res.destroy()
        return new Promise((resolve) => server.close(resolve))
      },
    }
  }

  it('rejects a body that is not JSON with a MockApiClientError, not a raw SyntaxError', async () => {
    const proxy = await stranger((res) => res.end('<html>a captive portal</html>'))
    try {
      const error = await connectMockApi(proxy.url)
        .state()
        .catch((e: unknown) => e)
      expect(error).toBeInstanceOf(MockApiClientError)
      expect(error).toMatchObject({
        code: 'invalid-answer',
        message: expect.stringMatching(
          /^GET http:.*\/__mock\/state answered 200 with a body that is not JSON: "<html>/,
        ),
        cause: expect.any(SyntaxError),
      })
    } finally {
      await proxy.close()
    }
  })

  it('gives up after timeoutMs with a MockApiClientError timeout', async () => {
    const silent = await stranger()
    try {
      const api = connectMockApi(silent.url, { timeoutMs: 200 })
      await expect(api.ready).rejects.toMatchObject({
        constructor: MockApiClientError,
        code: 'timeout',
        message: expect.stringMatching(/^GET .*\/__mock\/health: no answer within 200 ms$/),
      })
    } finally {
      await silent.close()
    }
  })

  it('rejects with a MockApiClientError unreachable when nothing listens', async () => {
    const gone = await stranger((res) => res.end())
    await gone.close()
    await expect(connectMockApi(gone.url).reset()).rejects.toMatchObject({
      constructor: MockApiClientError,
      code: 'unreachable',
      message: expect.stringMatching(/no answer \(ECONNREFUSED\)$/),
    })
  })

  it("rejects an error answer that is not the mock's with a MockApiClientError, not an ApiError", async () => {
    const gateway = await stranger((res) => {
      res.statusCode = 502
      res.end('<h1>502 Bad Gateway</h1>')
    })
    try {
      await expect(connectMockApi(gateway.url).state()).rejects.toMatchObject({
        constructor: MockApiClientError,
        code: 'invalid-answer',
        message: expect.stringMatching(/answered 502 Bad Gateway, not an error of the mock: "<h1>/),
      })
    } finally {
      await gateway.close()
    }
  })

  it('rejects an answer of the wrong shape with a MockApiClientError naming what differs', async () => {
    const wrong = await stranger((res) => {
      res.setHeader('content-type', 'application/json')
      res.end(JSON.stringify({ now: 42 }))
    })
    try {
      const api = connectMockApi(wrong.url)
      const error = await api.clock().catch((e: unknown) => e)
      expect(error).toBeInstanceOf(MockApiClientError)
      expect(error).toMatchObject({
        code: 'invalid-answer',
        message: expect.stringMatching(
          /^GET http:.*\/__mock\/clock answered 200 with a body that is not the endpoint's: now: .*; mode: /,
        ),
      })
      // A list whose item differs is named by its place.
      await expect(api.queuedFaults()).rejects.toMatchObject({
        code: 'invalid-answer',
        message: expect.stringContaining('body: '),
      })
    } finally {
      await wrong.close()
    }
  })

  it('reads an endless answer only up to maxAnswerBytes, then rejects', async () => {
    const chunk = Buffer.alloc(64 * 1024, 0x20)
    let written = 0
    const endless = await stranger((res) => {
      res.setHeader('content-type', 'application/json')
      res.write('[')
      const more = () => {
        while (!res.destroyed && written < 512 * 1024 * 1024) {
          written += chunk.length
          if (!res.write(chunk)) return void res.once('drain', more)
        }
      }
      more()
    })
    try {
      const api = connectMockApi(endless.url, { maxAnswerBytes: 1024 * 1024, timeoutMs: 60_000 })
      await expect(api.requests()).rejects.toMatchObject({
        constructor: MockApiClientError,
        code: 'invalid-answer',
        message: expect.stringMatching(
          /answered 200 with a body past 1048576 bytes \(maxAnswerBytes\)/,
        ),
      })
      // The client stopped reading: the server was left far from its 512 MiB.
      expect(written).toBeLessThan(64 * 1024 * 1024)
    } finally {
      await endless.close()
    }
  }, 60_000)
})

describe('connectMockApi checks its options when it is made', () => {
  it.each([2 ** 31, Number.POSITIVE_INFINITY, Number.NaN, -1, 0, 1.5, '100'])(
    'refuses timeoutMs %s with a TypeError naming the bounds',
    (timeoutMs) => {
      expect(() =>
        connectMockApi('http://127.0.0.1:9', { timeoutMs: timeoutMs as number }),
      ).toThrow(
        new TypeError(
          `connectMockApi: timeoutMs must be a whole number from 1 to 2147483647, not ${typeof timeoutMs === 'string' ? '"100"' : String(timeoutMs)}`,
        ),
      )
    },
  )

  it('takes the bounds themselves, and refuses a maxAnswerBytes that is not a whole number', () => {
    expect(() => connectMockApi('http://127.0.0.1:9', { timeoutMs: 1 })).not.toThrow()
    expect(() => connectMockApi('http://127.0.0.1:9', { timeoutMs: 2 ** 31 - 1 })).not.toThrow()
    expect(() => connectMockApi('http://127.0.0.1:9', { maxAnswerBytes: 0 })).toThrow(
      /maxAnswerBytes must be a whole number from 1 to/,
    )
  })
})
