import { Agent, type OutgoingHttpHeaders } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from '../../src/server/server.ts'
import { sendRaw } from '../support/http-client.ts'

/**
 * Every header the server reads is parsed in linear time: a header built to make a regular
 * expression backtrack (`a`, 16,000 spaces, `x`) is answered as quickly as a plain one. Timings
 * are compared as a ratio of medians taken side by side, never against a fixed time.
 */

const spaces = ' '.repeat(16_000)
const rounds = 25
const warmUpRounds = 5

let server: RunningServer
let agent: Agent
let key: string
beforeAll(async () => {
  server = await startServer({ port: 0 })
  agent = new Agent({ keepAlive: true, maxSockets: 1 })
  key = server.core.credentials[0]?.apiKeys[0] as string
})
afterAll(async () => {
  agent.destroy()
  await server.close()
})

interface Probe {
  method: string
  target: string
  headers: OutgoingHttpHeaders
  body?: string
}

async function timed({ method, target, headers, body }: Probe): Promise<[number, number]> {
  const started = performance.now()
  const answer = await sendRaw(server.url, {
    method,
    target,
    headers,
    agent,
    body: body === undefined ? null : new TextEncoder().encode(body),
  })
  return [performance.now() - started, answer.status]
}

const median = (values: number[]) => values.sort((a, b) => a - b)[values.length >> 1] as number

/**
 * How much longer `pathological` takes than `plain`: the median, over rounds that send one and
 * then the other, of their ratio (a pause of the shared machine hits both of a round alike); and
 * the statuses they were answered with.
 */
async function ratioOf(plain: Probe, pathological: Probe) {
  const ratios: number[] = []
  const statuses = new Set<string>()
  for (let round = 0; round < warmUpRounds + rounds; round++) {
    const [plainTime, plainStatus] = await timed(plain)
    const [slowTime, slowStatus] = await timed(pathological)
    statuses.add(`${plainStatus} ${slowStatus}`)
    if (round >= warmUpRounds) ratios.push(slowTime / plainTime)
  }
  return { ratio: median(ratios), statuses: [...statuses] }
}

describe('the request path parses headers in linear time', () => {
  it('answers a Content-Type of "a", 16,000 spaces and "x" on a control route as fast as a plain one', async () => {
    const probe = (contentType: string): Probe => ({
      method: 'POST',
      target: '/__mock/faults',
      headers: { 'content-type': contentType },
      body: '{}',
    })
    const { ratio, statuses } = await ratioOf(
      probe('text/plain'),
      probe(`a${spaces}x; charset=utf-8`),
    )
    // Neither is JSON: both are refused as a form could send them.
    expect(statuses).toEqual(['400 400'])
    expect(ratio).toBeLessThan(3)
  })

  it('answers the same Content-Type on identify as fast as a plain one', async () => {
    const probe = (contentType: string): Probe => ({
      method: 'POST',
      target: '/api/v1/users/identify',
      headers: { authorization: `Bearer ${key}`, 'content-type': contentType },
      body: '{"id":"linear","orgId":"org-1"}',
    })
    const { ratio, statuses } = await ratioOf(probe('text/plain'), probe(`a${spaces}x`))
    expect(statuses).toEqual(['400 400'])
    expect(ratio).toBeLessThan(3)
  })

  it('answers an Authorization of "Bearer", spaces, a key, spaces and "x" as fast as a wrong key', async () => {
    const probe = (authorization: string): Probe => ({
      method: 'DELETE',
      target: '/api/v1/users/org-1/linear',
      headers: { authorization },
    })
    const { ratio, statuses } = await ratioOf(
      probe('Bearer not-a-key'),
      probe(`Bearer${spaces.slice(8_000)}${key}${spaces.slice(8_000)}x`),
    )
    expect(statuses).toEqual(['401 401'])
    expect(ratio).toBeLessThan(3)
  })

  it('answers a Host of a name, 16,000 spaces and a port as fast as an unknown host', async () => {
    const probe = (host: string): Probe => ({
      method: 'GET',
      target: '/__mock/health',
      headers: { host },
    })
    const { ratio, statuses } = await ratioOf(
      probe('elsewhere.test'),
      probe(`a${spaces.slice(100)}x:80`),
    )
    expect(statuses).toEqual(['403 403'])
    expect(ratio).toBeLessThan(3)
  })
})
