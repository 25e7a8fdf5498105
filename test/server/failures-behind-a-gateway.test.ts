import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { OrganisationGatewaySetting } from '../../src/api/gateway.ts'
import { connectMockApi, type Tenant } from '../../src/client/connect-mock-api.ts'
import { type RunningServer, startServer } from '../../src/server/server.ts'
import { openConnection, type RawConnection, sleep, writeAll } from '../support/raw-socket.ts'

/**
 * Each failure kind behind each gateway, read by a raw socket client: the status line, headers
 * and body bytes the gateway's page has (as nginx 1.22 and haproxy 2.6 write them), and what
 * becomes of the connection: kept (the next request on it answered), closed, or closed at the
 * next request with no byte.
 */

let server: RunningServer
beforeAll(async () => {
  server = await startServer({ port: 0 })
})
afterAll(() => server.close())

const client = () => connectMockApi(server.url)

/** A tenant with `ada`, behind `gateway`. */
async function tenantBehind(gateway: OrganisationGatewaySetting): Promise<Tenant> {
  const tenant = await client().organisations.create({
    users: [{ id: 'ada', registrationStatus: 'registered' }],
  })
  await tenant.setGateway(gateway)
  return tenant
}

const deleteOf = (tenant: Tenant, id = 'ada') =>
  `DELETE /api/v1/users/${tenant.orgId}/${id} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${tenant.apiKey}\r\n\r\n`

/** A connection that has sent `tenant`'s delete of ada. */
async function deleting(tenant: Tenant): Promise<RawConnection> {
  const connection = await openConnection(server.url)
  await writeAll(connection.socket, deleteOf(tenant))
  return connection
}

const httpDate = /[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT/

/** nginx's page for a status, with `date` in its `Date` header (as measured, `server_tokens off`). */
function nginxPage(status: string, date: string, extra = ''): string {
  const body = `<html>\r\n<head><title>${status}</title></head>\r\n<body>\r\n<center><h1>${status}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`
  return `HTTP/1.1 ${status}\r\nServer: nginx\r\nDate: ${date}\r\nContent-Type: text/html\r\nContent-Length: ${body.length}\r\nConnection: keep-alive\r\n${extra}\r\n${body}`
}

/** haproxy's page for a status and its line of text (as measured: no `Server`, no `Date`). */
function haproxyPage(status: string, text: string, extra = ''): string {
  const body = `<html><body><h1>${status}</h1>\n${text}\n</body></html>\n`
  return `HTTP/1.1 ${status}\r\ncontent-length: ${body.length}\r\ncache-control: no-cache\r\ncontent-type: text/html\r\n${extra}\r\n${body}`
}

/** Waits until `connection` has received `length` bytes (or closed). */
async function receivedWhole(connection: RawConnection, length: number): Promise<string> {
  while (connection.received().length < length && !connection.isClosed()) await sleep(10)
  return connection.received()
}

/** The `Date` a page carries. */
const dateIn = (bytes: string) => bytes.match(httpDate)?.[0] ?? 'no date'

/** Sends a second request on `connection`, and what it met: an answer's status line, or closed with no byte. */
async function nextRequest(connection: RawConnection, tenant: Tenant): Promise<string> {
  const before = connection.received().length
  await writeAll(connection.socket, deleteOf(tenant, 'nobody'))
  try {
    await connection.waitFor(/HTTP\/1\.1 404 Not Found\r\n[\s\S]*"User not found"\}$/)
    return 'answered'
  } catch {
    return connection.received().length === before ? 'closed with no byte' : 'closed after bytes'
  }
}

describe('behind nginx', () => {
  it('reset and empty: its 502 page, and the connection kept', async () => {
    for (const kind of ['reset', 'empty'] as const) {
      const tenant = await tenantBehind({ gateway: 'nginx' })
      await tenant.failNext('delete', { kind, applied: true })
      const connection = await deleting(tenant)
      const page = nginxPage('502 Bad Gateway', 'DATE')
      const bytes = await receivedWhole(connection, page.length)
      expect(bytes).toBe(nginxPage('502 Bad Gateway', dateIn(bytes)))
      expect(await nextRequest(connection, tenant)).toBe('answered')
      connection.socket.destroy()
      expect((await tenant.requests()).at(-2)?.failure).toEqual({
        kind,
        status: 502,
        applied: true,
        gateway: 'nginx',
      })
    }
  })

  it('hang: its 504 page at the read timeout, or its 502 at the bound when that comes first', async () => {
    const tenant = await tenantBehind({ gateway: 'nginx', readTimeoutMs: 200 })
    await tenant.failNext('delete', { kind: 'hang', delayMs: 60_000 })
    const started = performance.now()
    const timedOut = await deleting(tenant)
    const page = nginxPage('504 Gateway Time-out', 'DATE')
    const bytes = await receivedWhole(timedOut, page.length)
    expect(performance.now() - started).toBeGreaterThanOrEqual(190)
    expect(bytes).toBe(nginxPage('504 Gateway Time-out', dateIn(bytes)))
    expect(await nextRequest(timedOut, tenant)).toBe('answered')
    timedOut.socket.destroy()

    await tenant.setGateway({ gateway: 'nginx', readTimeoutMs: 60_000 })
    await tenant.failNext('delete', { kind: 'hang', delayMs: 200 })
    const bounded = await deleting(tenant)
    const bad = await receivedWhole(bounded, nginxPage('502 Bad Gateway', 'DATE').length)
    expect(bad).toBe(nginxPage('502 Bad Gateway', dateIn(bad)))
    bounded.socket.destroy()
    expect((await tenant.requests()).map((e) => e.failure?.status)).toEqual([504, undefined, 502])
  })

  it('truncated: as without a gateway, half the body and closed', async () => {
    const tenant = await tenantBehind({ gateway: 'nginx' })
    await tenant.failNext('delete-truncated')
    const connection = await deleting(tenant)
    await connection.closed
    expect(connection.received()).toMatch(
      /^HTTP\/1\.1 200 OK\r\n[\s\S]*content-length: 27\r\n[\s\S]*\r\n\r\n\{"id":"ada","$/i,
    )
  })

  it('slow, buffered: the headers only once the whole body is there', async () => {
    const tenant = await tenantBehind({ gateway: 'nginx', readTimeoutMs: 5000 })
    await tenant.failNext('delete', { kind: 'slow', delayMs: 400 })
    const started = performance.now()
    const connection = await deleting(tenant)
    const { index } = (await connection.waitFor(/HTTP\/1\.1 200 OK/)) as { index: number }
    expect(index).toBe(0)
    // The first bytes come with the whole body: never before the body's span.
    expect(performance.now() - started).toBeGreaterThanOrEqual(380)
    expect(connection.received()).toMatch(/\r\n\r\n\{"id":"ada","deleted":true\}$/)
    connection.socket.destroy()
  })

  it('slow, buffered, with a pause past the read timeout: the headers, no body, closed', async () => {
    const tenant = await tenantBehind({ gateway: 'nginx', readTimeoutMs: 300 })
    // Eight pieces over 7 s: a second between two.
    await tenant.failNext('delete', { kind: 'slow', delayMs: 7000 })
    const connection = await deleting(tenant)
    await connection.closed
    expect(connection.received()).toMatch(
      /^HTTP\/1\.1 200 OK\r\n[\s\S]*content-length: 27\r\n[\s\S]*\r\n\r\n$/i,
    )
  })

  it('slow, not buffered: as without a gateway, the first piece at once', async () => {
    const tenant = await tenantBehind({ gateway: 'nginx', buffering: false })
    await tenant.failNext('delete', { kind: 'slow', delayMs: 3000 })
    const connection = await deleting(tenant)
    await connection.waitFor(/\r\n\r\n\{/)
    expect(connection.received()).not.toMatch(/"deleted":true\}$/)
    connection.socket.destroy()
  })

  it('a gateway fault: its own page, a 503 in its words, Retry-After only when asked', async () => {
    const tenant = await tenantBehind({ gateway: 'nginx' })
    const cases: [object, string, string][] = [
      [{ status: 503 }, '503 Service Temporarily Unavailable', ''],
      [{ status: 429 }, '429 Too Many Requests', ''],
      [{ status: 503, retryAfterSeconds: 30 }, '503 Service Temporarily Unavailable', '30'],
      [{ status: 504 }, '504 Gateway Time-out', ''],
    ]
    for (const [fault, status, retryAfter] of cases) {
      await tenant.failNext('delete', { kind: 'gateway', ...fault })
      const connection = await deleting(tenant)
      const extra = retryAfter ? `Retry-After: ${retryAfter}\r\n` : ''
      const bytes = await receivedWhole(connection, nginxPage(status, 'DATE', extra).length)
      expect(bytes).toBe(nginxPage(status, dateIn(bytes), extra))
      connection.socket.destroy()
    }
    await tenant.failNext('delete', { kind: 'gateway', status: 429, retryAfterDate: true })
    const dated = await deleting(tenant)
    await dated.waitFor(/<\/html>\r\n$/)
    const retryAt = dated.received().match(/Retry-After: (.*)\r\n/)?.[1] ?? ''
    expect(retryAt).toMatch(httpDate)
    expect(Date.parse(retryAt)).toBeGreaterThan(Date.parse(dateIn(dated.received())))
    dated.socket.destroy()
  })
})

describe('behind haproxy', () => {
  const badGateway = haproxyPage(
    '502 Bad Gateway',
    'The server returned an invalid or incomplete response.',
  )

  it('reset and empty: its 502 page without a word of the connection, which closes at the next request with no byte', async () => {
    for (const kind of ['reset', 'empty'] as const) {
      const tenant = await tenantBehind({ gateway: 'haproxy' })
      await tenant.failNext('delete', { kind })
      const connection = await deleting(tenant)
      expect(await receivedWhole(connection, badGateway.length)).toBe(badGateway)
      await sleep(50)
      expect(connection.isClosed()).toBe(false)
      expect(await nextRequest(connection, tenant)).toBe('closed with no byte')
      // The request on the closed connection never reached the API.
      expect((await tenant.requests()).map((e) => e.failure)).toEqual([
        { kind, status: 502, applied: false, gateway: 'haproxy' },
      ])
    }
  })

  it('hang: its 504 page at the read timeout', async () => {
    const tenant = await tenantBehind({ gateway: 'haproxy', readTimeoutMs: 200 })
    await tenant.failNext('delete', { kind: 'hang' })
    const connection = await deleting(tenant)
    const page = haproxyPage('504 Gateway Time-out', "The server didn't respond in time.")
    expect(await receivedWhole(connection, page.length)).toBe(page)
    expect(await nextRequest(connection, tenant)).toBe('closed with no byte')
  })

  it('a gateway fault: its own page; a 429 keeps the connection, a 503 carries Retry-After only when asked', async () => {
    const tenant = await tenantBehind({ gateway: 'haproxy' })
    await tenant.failNext('delete', { kind: 'gateway', status: 429 })
    const limited = await deleting(tenant)
    const tooMany = haproxyPage(
      '429 Too Many Requests',
      'You have sent too many requests in a given amount of time.',
    )
    expect(await receivedWhole(limited, tooMany.length)).toBe(tooMany)
    expect(await nextRequest(limited, tenant)).toBe('answered')
    limited.socket.destroy()

    await tenant.failNext('delete', { kind: 'gateway', status: 503, retryAfterSeconds: 0 })
    const unavailable = await deleting(tenant)
    const page = haproxyPage(
      '503 Service Unavailable',
      'No server is available to handle this request.',
      'retry-after: 0\r\n',
    )
    expect(await receivedWhole(unavailable, page.length)).toBe(page)
    unavailable.socket.destroy()
  })

  it('slow: as without a gateway', async () => {
    const tenant = await tenantBehind({ gateway: 'haproxy', readTimeoutMs: 100 })
    await tenant.failNext('delete', { kind: 'slow', delayMs: 3000 })
    const connection = await deleting(tenant)
    await connection.waitFor(/\r\n\r\n\{/)
    expect(connection.received()).not.toMatch(/"deleted":true\}$/)
    connection.socket.destroy()
  })
})

describe('with no gateway', () => {
  it('a 503 may carry Retry-After, and a 429 may go without', async () => {
    const tenant = await tenantBehind({ gateway: 'none' })
    await tenant.failNext('delete', { kind: 'gateway', status: 503, retryAfterSeconds: 7 })
    const unavailable = await deleting(tenant)
    await unavailable.waitFor(/<\/html>\n$/)
    expect(unavailable.received()).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/)
    expect(unavailable.received()).toMatch(/\r\nretry-after: 7\r\n/)
    unavailable.socket.destroy()
    await tenant.failNext('delete', { kind: 'gateway', status: 429, retryAfterSeconds: null })
    const limited = await deleting(tenant)
    await limited.waitFor(/<\/html>\n$/)
    expect(limited.received()).toMatch(/^HTTP\/1\.1 429 Too Many Requests\r\n/)
    expect(limited.received()).not.toMatch(/retry-after/i)
    limited.socket.destroy()
  })

  it('reset: an RST with no byte, as ever', async () => {
    const tenant = await tenantBehind({ gateway: 'none' })
    await tenant.failNext('delete-reset')
    const connection = await deleting(tenant)
    await connection.closed
    expect(connection.received()).toBe('')
    expect((await tenant.requests()).at(-1)?.failure).toEqual({ kind: 'reset', applied: false })
  })
})
