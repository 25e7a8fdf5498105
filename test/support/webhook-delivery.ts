import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Webhook } from 'svix'
import { expect } from 'vitest'
import { webhookEnvelopeSchema } from '../../src/root/index.ts'

/** One request a receiver got: its headers (lowercase names) and its raw body. */
export interface ReceivedDelivery {
  headers: Record<string, string>
  body: string
  /** `performance.now()` when it arrived. */
  receivedAt: number
}

/**
 * Checks a delivery as a receiver must: the real `svix` package verifies its signature with
 * `secret`, and its body is the published envelope (`object`, `type`, `api_version`,
 * `timestamp` with milliseconds and `Z`, `data`) and nothing else. Returns the envelope.
 */
export function expectSignedDelivery(delivery: ReceivedDelivery, secret: string) {
  expect(delivery.headers['content-type']).toBe('application/json')
  expect(delivery.headers['svix-id']).toMatch(/^msg_[0-9A-Za-z]{27}$/)
  expect(delivery.headers['svix-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/)
  new Webhook(secret).verify(delivery.body, delivery.headers)
  const envelope = JSON.parse(delivery.body)
  expect(Object.keys(envelope)).toEqual(['object', 'type', 'api_version', 'timestamp', 'data'])
  expect(envelope).toMatchObject({ object: 'event', api_version: '2022-11-15' })
  expect(envelope.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
  return webhookEnvelopeSchema.parse(envelope)
}

/** The headers of a Fetch `Request` or a Node request, as a plain object of lowercase names. */
export function plainHeaders(headers: Iterable<[string, string]>): Record<string, string> {
  return Object.fromEntries([...headers].map(([name, value]) => [name.toLowerCase(), value]))
}

/** A local HTTP receiver on a free port: what it got, and what it answers next. */
export interface LocalReceiver {
  url: string
  received: ReceivedDelivery[]
  /** The statuses to answer next, in order; 200 once they are used up. */
  answers: number[]
  close(): Promise<void>
}

/** Starts a {@link LocalReceiver} on 127.0.0.1, port 0. */
export async function startReceiver(): Promise<LocalReceiver> {
  const received: ReceivedDelivery[] = []
  const receiver: Omit<LocalReceiver, 'url' | 'close'> = { received, answers: [] }
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      received.push({
        headers: plainHeaders(
          Object.entries(req.headers).map(([name, value]) => [name, String(value)]),
        ),
        body: Buffer.concat(chunks).toString('utf8'),
        receivedAt: performance.now(),
      })
      res.statusCode = receiver.answers.shift() ?? 200
      res.end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}/webhooks`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  })
}
