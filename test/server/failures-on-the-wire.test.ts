import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectMockApi, type Tenant } from '../../src/client/connect-mock-api.ts'
import { type RunningServer, startServer } from '../../src/server/server.ts'

/**
 * What each failure puts on the wire, read by a raw socket client: the bytes the server sends,
 * and how the connection ends (an RST or a FIN), when.
 */

/** What a raw client met: the bytes, how the connection ended, and when (from the request). */
interface Met {
  bytes: string
  /** `reset`: an RST (ECONNRESET); `closed`: the server's FIN. */
  end: 'reset' | 'closed'
  endedAtMs: number
  /** When each piece of data came, from the request. */
  dataAtMs: number[]
}

let server: RunningServer
beforeAll(async () => {
  server = await startServer({ port: 0 })
})
afterAll(() => server.close())

/** Sends `request` on a new connection and reads until the server ends it. */
function exchange(request: string): Promise<Met> {
  const { hostname, port } = new URL(server.url)
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname)
    const started = performance.now()
    const at = () => Math.round(performance.now() - started)
    let bytes = ''
    const dataAtMs: number[] = []
    let reset = false
    socket.on('data', (chunk: Buffer) => {
      bytes += chunk.toString('latin1')
      dataAtMs.push(at())
    })
    socket.on('error', (error: NodeJS.ErrnoException) => {
      reset = error.code === 'ECONNRESET'
    })
    // The server's FIN: the client closes its side too, as a client that read to the end does.
    socket.on('end', () => socket.end())
    socket.on('close', () =>
      resolve({ bytes, end: reset ? 'reset' : 'closed', endedAtMs: at(), dataAtMs }),
    )
    socket.write(request)
  })
}

const client = () => connectMockApi(server.url)

async function tenantWithAda(): Promise<Tenant> {
  return client().organisations.create({ users: [{ id: 'ada', registrationStatus: 'registered' }] })
}

const deleteAda = (tenant: Tenant) =>
  `DELETE /api/v1/users/${tenant.orgId}/ada HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${tenant.apiKey}\r\nConnection: close\r\n\r\n`

const whole = '{"id":"ada","deleted":true}'

describe('failures on the wire of the standalone server', () => {
  it('reset: an RST, with no byte written', async () => {
    const tenant = await tenantWithAda()
    await tenant.failNext('delete-reset-applied')
    expect(await exchange(deleteAda(tenant))).toMatchObject({ bytes: '', end: 'reset' })
  })

  it('empty: a FIN, with no byte written', async () => {
    const tenant = await tenantWithAda()
    await tenant.failNext('delete-empty')
    expect(await exchange(deleteAda(tenant))).toMatchObject({ bytes: '', end: 'closed' })
  })

  it('hang: no byte until its bound, then the connection closed', async () => {
    const tenant = await tenantWithAda()
    await tenant.failNext('delete', { kind: 'hang', delayMs: 300 })
    const met = await exchange(deleteAda(tenant))
    expect(met.bytes).toBe('')
    expect(met.endedAtMs).toBeGreaterThanOrEqual(280)
  })

  it("truncated: the status line and headers with the whole body's length, half the body, then closed", async () => {
    const tenant = await tenantWithAda()
    await tenant.failNext('delete-truncated')
    const met = await exchange(deleteAda(tenant))
    const [head = '', body] = met.bytes.split('\r\n\r\n')
    expect(head).toMatch(/^HTTP\/1\.1 200 OK\r\n/)
    expect(head.toLowerCase()).toContain(`content-length: ${whole.length}`)
    expect(body).toBe(whole.slice(0, Math.floor(whole.length / 2)))
    expect(met.end).toBe('closed')
  })

  it('slow: the headers and a first piece at once, the rest in pieces until its span', async () => {
    const tenant = await tenantWithAda()
    await tenant.failNext('delete', { kind: 'slow', delayMs: 700 })
    const met = await exchange(deleteAda(tenant))
    const [head = '', body] = met.bytes.split('\r\n\r\n')
    expect(head).toMatch(/^HTTP\/1\.1 200 OK\r\n/)
    expect(head.toLowerCase()).toContain(`content-length: ${whole.length}`)
    expect(body).toBe(whole)
    expect(met.dataAtMs.length).toBeGreaterThan(2)
    expect((met.dataAtMs.at(-1) ?? 0) - (met.dataAtMs[0] ?? 0)).toBeGreaterThanOrEqual(600)
  })

  it('gateway: the status and a page of the gateway, on a connection kept as any answer', async () => {
    const tenant = await tenantWithAda()
    await tenant.failNext('delete-gateway-504-applied')
    const met = await exchange(deleteAda(tenant))
    expect(met.bytes).toMatch(/^HTTP\/1\.1 504 Gateway Timeout\r\n/)
    expect(met.bytes).toContain('content-type: text/html; charset=utf-8')
    expect(met.bytes).toContain('<h1>504 Gateway Timeout</h1>')
    expect(met.end).toBe('closed')
  })
})
