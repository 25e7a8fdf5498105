import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMockApi } from '../../src/root/index.ts'
import { type RunningServer, startServer } from '../../src/server/server.ts'

const json = { 'content-type': 'application/json' }
let server: RunningServer
beforeAll(async () => {
  server = await startServer({ port: 0 })
})
afterAll(async () => {
  await server.close()
})

describe('a webhook endpoint at the mock itself', () => {
  it('cannot reset it: a signed delivery to a control URL is refused 403', async () => {
    const added = await fetch(`${server.url}/__mock/webhooks`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ url: `${server.url}/__mock/reset` }),
    })
    expect(added.status).toBe(201)
    server.core.failNext('delete', { status: 500 })
    const raised = await fetch(`${server.url}/__mock/events`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ type: 'self.test', data: {} }),
    })
    expect(raised.status).toBe(202)
    const firstAttempt = () => server.core.webhooks.deliveries()[0]?.attempts[0]
    while (firstAttempt() === undefined) await new Promise((resolve) => setTimeout(resolve, 10))
    expect(firstAttempt()).toMatchObject({ status: 403 })
    expect(server.core.queuedFaults()).toHaveLength(1)
  })
})

describe('a webhook URL at a link-local or cloud metadata address, in any form', () => {
  const refused = [
    'http://169.254.169.254/latest/meta-data/',
    'http://2852039166/latest/meta-data/',
    'http://[fe80::1]/hook',
    'http://[febf::1]/hook',
    'http://[::ffff:169.254.169.254]/hook',
    // IPv4-compatible, IPv4-translated, NAT64 and mapped (in hexadecimal) forms of 169.254.169.254.
    'http://[::a9fe:a9fe]/hook',
    'http://[::ffff:0:a9fe:a9fe]/hook',
    'http://[64:ff9b::a9fe:a9fe]/hook',
    'http://[::ffff:a9fe:1]/hook',
    // Metadata services outside 169.254.0.0/16.
    'http://100.100.100.200/latest/meta-data/',
    'http://[fd00:ec2::254]/latest/meta-data/',
  ]
  const allowed = [
    'http://127.0.0.1:9/hook',
    'http://localhost:9/hook',
    'http://[fe8::1]/hook',
    'http://[::1]:9/hook',
    'http://[::ffff:127.0.0.1]:9/hook',
    'http://10.0.0.7:9/hook',
    'http://[64:ff9b::a00:7]:9/hook',
  ]

  it('is refused by api.webhooks.add with a TypeError, loopback receivers still allowed', () => {
    const api = createMockApi()
    for (const url of refused) {
      expect(() => api.webhooks.add({ url })).toThrow(/must not be a link-local address/)
    }
    for (const url of allowed) expect(api.webhooks.add({ url }).url).toBe(url)
  })

  it('is refused 400 by POST /__mock/webhooks', async () => {
    const response = await fetch(`${server.url}/__mock/webhooks`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ url: refused[0] }),
    })
    expect(response.status).toBe(400)
    expect(((await response.json()) as { message: string }).message).toMatch(
      /must not be a link-local address/,
    )
  })
})
