import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from '../../src/server/server.ts'
import { svixRetrySchedule } from '../../src/webhooks/limits.ts'
import { controlCall } from '../support/control-call.ts'
import {
  expectSignedDelivery,
  type LocalReceiver,
  startReceiver,
} from '../support/webhook-delivery.ts'

/**
 * Webhook retries on the clock of the event's organisation, over HTTP: a receiver that fails the
 * first seven attempts sees the other seven delivered by advancing the tenant's clock, never by
 * real time passing while it stands still.
 */

const frozenAt = '2031-03-04T05:06:07.000Z'
const frozenMs = Date.parse(frozenAt)

/** A call of the control endpoints of `server`: its status and JSON body. */
const control = (server: RunningServer, method: string, path: string, body?: unknown) =>
  controlCall(server.url, method, path, body)

/** A tenant whose clock stands at `frozenAt` (or real), with a user, an endpoint and a receiver. */
async function tenantWithReceiver(server: RunningServer, clock?: { frozenAt: string }) {
  const receiver = await startReceiver()
  const created = await control(server, 'POST', '/organisations', {
    ...(clock && { clock }),
    users: [{ id: 'ada', registrationStatus: 'registered' }],
  })
  expect(created.status).toBe(201)
  const { orgId } = created.body as { orgId: string }
  const endpoint = await control(server, 'POST', '/webhooks', { url: receiver.url })
  const { secret } = endpoint.body as { secret: string }
  return { receiver, orgId, secret }
}

const raise = (server: RunningServer, orgId: string, extra: object = {}) =>
  control(server, 'POST', '/events', { type: 'user.course.started', orgId, id: 'ada', ...extra })

const advance = (server: RunningServer, orgId: string, ms: number) =>
  control(server, 'POST', `/organisations/${orgId}/clock/advance`, { ms })

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Each attempt the receiver got: one message id, each signed at its attempt with the real time
 * (seconds from `since`, before the event was raised, to now), which the receiver checks against
 * its own clock: `svix` verifies it.
 */
function expectOneMessage(receiver: LocalReceiver, secret: string, id: string, since: number) {
  const until = Math.ceil(Date.now() / 1000)
  for (const attempt of receiver.received) {
    expectSignedDelivery(attempt, secret)
    expect(attempt.headers['svix-id']).toBe(id)
    const seconds = Number(attempt.headers['svix-timestamp'])
    expect(seconds).toBeGreaterThanOrEqual(since)
    expect(seconds).toBeLessThanOrEqual(until)
  }
}

/** The tenant times each attempt is due at: the first at once, each retry its delay later. */
const dueTimes = [frozenMs]
for (const delay of svixRetrySchedule) dueTimes.push((dueTimes.at(-1) as number) + delay)

describe("webhook retries on the tenant's clock, Svix's schedule", () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer({ port: 0 })
  })
  afterAll(() => server.close())

  it('delivers attempts 2 to 8 one advance per delay, each before the advance answers, in order', async () => {
    const { receiver, orgId, secret } = await tenantWithReceiver(server, { frozenAt })
    try {
      receiver.answers = [500, 500, 500, 500, 500, 500, 500]
      const since = Math.floor(Date.now() / 1000)
      const event = await raise(server, orgId)
      expect(event.body.timestamp).toBe(frozenAt)
      await expect.poll(() => receiver.received.length).toBe(1)
      for (const [i, delay] of svixRetrySchedule.entries()) {
        // A millisecond short of its delay, the retry is not due.
        expect((await advance(server, orgId, delay - 1)).status).toBe(200)
        expect(receiver.received).toHaveLength(i + 1)
        const answer = await advance(server, orgId, 1)
        expect(answer.body).toEqual({
          now: new Date(dueTimes[i + 1] as number).toISOString(),
          mode: 'frozen',
        })
        expect(receiver.received).toHaveLength(i + 2)
      }
      expectOneMessage(receiver, secret, event.body.id, since)
      for (const attempt of receiver.received) {
        expect(JSON.parse(attempt.body).timestamp).toBe(frozenAt)
      }
      const deliveries = (await control(server, 'GET', '/webhooks/deliveries')).body
      const delivery = deliveries.find((d: { id: string }) => d.id === event.body.id)
      expect(delivery).toMatchObject({ delivered: true })
      expect(delivery.attempts).toEqual(
        dueTimes.map((at, i) => ({
          at: new Date(at).toISOString(),
          status: i < 7 ? 500 : 200,
        })),
      )
    } finally {
      await receiver.close()
    }
  })

  it('delivers them all, in order, before one long advance answers; a past timestamp is kept', async () => {
    const { receiver, orgId, secret } = await tenantWithReceiver(server, { frozenAt })
    try {
      receiver.answers = [500, 500, 500, 500, 500, 500, 500]
      const late = '2031-02-01T00:00:00.000Z'
      const since = Math.floor(Date.now() / 1000)
      const event = await raise(server, orgId, { timestamp: late })
      await expect.poll(() => receiver.received.length).toBe(1)
      const answer = await advance(server, orgId, 2 * 24 * 60 * 60 * 1000)
      expect(answer.body).toEqual({
        now: new Date(frozenMs + 2 * 24 * 60 * 60 * 1000).toISOString(),
        mode: 'frozen',
      })
      expect(receiver.received).toHaveLength(8)
      expectOneMessage(receiver, secret, event.body.id, since)
      for (const attempt of receiver.received) expect(JSON.parse(attempt.body).timestamp).toBe(late)
      const deliveries = (await control(server, 'GET', '/webhooks/deliveries')).body
      const delivery = deliveries.find((d: { id: string }) => d.id === event.body.id)
      expect(delivery.attempts.map((a: { at: string }) => Date.parse(a.at))).toEqual(dueTimes)
    } finally {
      await receiver.close()
    }
  })
})

describe('webhook retries while the clock stands still', () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer({ port: 0, webhookRetrySchedule: [30, 30, 30, 30, 30, 30, 30] })
  })
  afterAll(() => server.close())

  it('are never made by real time passing; a tenant on the real clock gets them meanwhile', async () => {
    const frozen = await tenantWithReceiver(server, { frozenAt })
    const real = await tenantWithReceiver(server)
    /** How many attempts each delivery (of each event to each endpoint) has had, by tenant. */
    const attempts = async () => {
      const deliveries = (await control(server, 'GET', '/webhooks/deliveries')).body as {
        id: string
        attempts: unknown[]
      }[]
      const of = (id: string) => deliveries.filter((d) => d.id === id).map((d) => d.attempts.length)
      return { frozen: of(frozenEvent), real: of(realEvent) }
    }
    let frozenEvent = ''
    let realEvent = ''
    try {
      // Every endpoint receives every event, and fails every attempt.
      frozen.receiver.answers = Array(100).fill(500)
      real.receiver.answers = Array(100).fill(500)
      frozenEvent = (await raise(server, frozen.orgId)).body.id
      realEvent = (await raise(server, real.orgId)).body.id
      await expect.poll(async () => (await attempts()).real).toEqual([8, 8])
      await sleep(300)
      expect((await attempts()).frozen).toEqual([1, 1])
      expect((await advance(server, frozen.orgId, 30 * 7)).status).toBe(200)
      expect((await attempts()).frozen).toEqual([8, 8])
    } finally {
      await frozen.receiver.close()
      await real.receiver.close()
    }
  })
})
