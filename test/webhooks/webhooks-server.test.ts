import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from '../../src/server/server.ts'
import { generateWebhookSecret } from '../../src/webhooks/signature.ts'
import {
  expectSignedDelivery,
  type LocalReceiver,
  startReceiver,
} from '../support/webhook-delivery.ts'

/**
 * Webhooks over HTTP: the standalone server, its `/__mock/webhooks` and `/__mock/events`
 * control endpoints, delivering to a local HTTP receiver.
 */

const retrySchedule = [60]
const json = { 'content-type': 'application/json' }
let receiver: LocalReceiver
let server: RunningServer
const startSecret = generateWebhookSecret()

beforeAll(async () => {
  receiver = await startReceiver()
  server = await startServer({
    port: 0,
    webhooks: [{ url: receiver.url, secret: startSecret }],
    webhookRetrySchedule: retrySchedule,
  })
})
afterEach(async () => {
  await fetch(`${server.url}/__mock/reset`, { method: 'POST' })
  receiver.received.length = 0
  receiver.answers = []
})
afterAll(async () => {
  await server.close()
  await receiver.close()
})

const control = (path: string, init: { method?: string; body?: unknown } = {}) =>
  fetch(`${server.url}${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    ...(init.body !== undefined && { headers: json, body: JSON.stringify(init.body) }),
  })

async function aUser() {
  const [user] = (await server.core.state()).users
  if (!user) throw new Error('no seeded user')
  return user
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('POST /__mock/events', () => {
  it('answers 202 with the event and its message id, and delivers it signed', async () => {
    const user = await aUser()
    const res = await control('/__mock/events', {
      body: { type: 'notifications.sent', orgId: user.orgId, id: user.id, title: 'Hello' },
    })
    expect(res.status).toBe(202)
    const event = await res.json()
    expect(event).toMatchObject({
      id: expect.stringMatching(/^msg_/),
      object: 'event',
      type: 'notifications.sent',
      api_version: '2022-11-15',
    })
    await server.core.webhooks.settled()
    const [delivery] = receiver.received
    if (!delivery) throw new Error('nothing delivered')
    expect(delivery.headers['svix-id']).toBe(event.id)
    const envelope = expectSignedDelivery(delivery, startSecret)
    expect(envelope.data).toEqual({
      notifications: [
        {
          title: 'Hello',
          body: expect.any(String),
          path: '/learning',
          user_id: user.userId,
          custom_id: user.id,
          phone_number: null,
        },
      ],
    })
  })

  it('answers 400 with what is wrong, and 404 User not found for a deleted user', async () => {
    const user = await aUser()
    for (const body of [
      { orgId: user.orgId, id: user.id },
      { type: 'notifications.sent', orgId: user.orgId, id: user.id, unknown: 1 },
      { type: 'notifications.sent', orgId: user.orgId, id: user.id, timestamp: 'soon' },
      [],
    ]) {
      const res = await control('/__mock/events', { body })
      expect(res.status).toBe(400)
      expect(await res.json()).toEqual({ code: 400, message: expect.stringMatching(/\S/) })
    }
    const key = server.core.credentials.find((c) => c.orgId === user.orgId)?.apiKeys[0]
    const deleted = await fetch(`${server.url}/api/v1/users/${user.orgId}/${user.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${key}` },
    })
    expect(deleted.status).toBe(200)
    const res = await control('/__mock/events', {
      body: { type: 'user.course.started', orgId: user.orgId, id: user.id },
    })
    expect(res.status).toBe(404)
    expect(await res.json()).toEqual({ code: 404, message: 'User not found' })
    await server.core.webhooks.settled()
    expect(receiver.received).toEqual([])
  })
})

describe('/__mock/webhooks', () => {
  it('creates an endpoint (201, with its secret), lists endpoints without secrets, deletes one', async () => {
    const res = await control('/__mock/webhooks', {
      body: { url: receiver.url, events: ['user.course.started'] },
    })
    expect(res.status).toBe(201)
    const created = await res.json()
    expect(created).toEqual({
      id: expect.stringMatching(/^ep_/),
      url: receiver.url,
      secret: expect.stringMatching(/^whsec_/),
      events: ['user.course.started'],
    })
    const listed = await (await control('/__mock/webhooks')).json()
    expect(listed).toEqual([
      { id: expect.stringMatching(/^ep_/), url: receiver.url, events: null },
      { id: created.id, url: receiver.url, events: ['user.course.started'] },
    ])
    expect(JSON.stringify(listed)).not.toContain('whsec_')

    const user = await aUser()
    await control('/__mock/events', {
      body: { type: 'user.course.started', orgId: user.orgId, id: user.id },
    })
    await server.core.webhooks.settled()
    expect(receiver.received).toHaveLength(2)
    const verified = receiver.received.filter((delivery) => {
      try {
        expectSignedDelivery(delivery, created.secret)
        return true
      } catch {
        return false
      }
    })
    expect(verified).toHaveLength(1)

    const removed = await control(`/__mock/webhooks/${created.id}`, { method: 'DELETE' })
    expect(removed.status).toBe(204)
    const again = await control(`/__mock/webhooks/${created.id}`, { method: 'DELETE' })
    expect(again.status).toBe(404)
    expect(await again.json()).toEqual({ code: 404, message: 'Webhook endpoint not found' })
  })

  it('refuses a bad endpoint with 400 and a message, and a wrong method with 405', async () => {
    for (const body of [
      { url: 'ftp://x.test' },
      { url: receiver.url, secret: 'x' },
      { nope: 1 },
      'x',
    ]) {
      const res = await control('/__mock/webhooks', { body })
      expect(res.status).toBe(400)
      expect(await res.json()).toEqual({ code: 400, message: expect.stringMatching(/\S/) })
    }
    const put = await control('/__mock/webhooks', { method: 'PUT' })
    expect(put.status).toBe(405)
    expect(put.headers.get('allow')).toBe('POST, GET, HEAD')
    const post = await control('/__mock/webhooks/deliveries', { body: {} })
    expect(post.status).toBe(405)
    // The static `deliveries` beats the endpoint's `:id`: its path is the deliveries', not an endpoint's.
    expect(post.headers.get('allow')).toBe('GET, HEAD')
    const removeDeliveries = await control('/__mock/webhooks/deliveries', { method: 'DELETE' })
    expect(removeDeliveries.status).toBe(405)
    expect(removeDeliveries.headers.get('allow')).toBe('GET, HEAD')
    expect((await control('/__mock/webhooks/%zz', { method: 'DELETE' })).status).toBe(404)
  })

  it('lists deliveries with every attempt: a 500 then a 200, spaced by the schedule', async () => {
    receiver.answers = [500]
    const event = await (
      await control('/__mock/events', { body: { type: 'a.b', data: {} } })
    ).json()
    await server.core.webhooks.settled()
    const [first, second] = receiver.received
    if (!first || !second) throw new Error('expected two attempts')
    expect(second.headers['svix-id']).toBe(first.headers['svix-id'])
    expect(second.receivedAt - first.receivedAt).toBeGreaterThanOrEqual((retrySchedule[0] ?? 0) - 1)
    for (const attempt of [first, second]) expectSignedDelivery(attempt, startSecret)
    const deliveries = await (await control('/__mock/webhooks/deliveries')).json()
    expect(deliveries).toEqual([
      {
        id: event.id,
        endpoint: expect.stringMatching(/^ep_/),
        type: 'a.b',
        attempts: [
          { at: expect.any(String), status: 500 },
          { at: expect.any(String), status: 200 },
        ],
        delivered: true,
      },
    ])
  })

  it('lists only the newest deliveries with ?limit=, and refuses a bad limit with 400', async () => {
    const raised = []
    for (const type of ['a.one', 'a.two', 'a.three']) {
      raised.push(await (await control('/__mock/events', { body: { type, data: {} } })).json())
    }
    await server.core.webhooks.settled()
    const newest = await (await control('/__mock/webhooks/deliveries?limit=2')).json()
    expect(newest.map((d: { id: string }) => d.id)).toEqual(raised.slice(1).map((e) => e.id))
    for (const limit of ['0', '-1', 'x']) {
      const res = await control(`/__mock/webhooks/deliveries?limit=${limit}`)
      expect(res.status).toBe(400)
      expect(await res.json()).toEqual({ code: 400, message: expect.stringMatching(/limit/) })
    }
  })

  it('reset clears deliveries, cancels retries and keeps only the endpoints given at start', async () => {
    await control('/__mock/webhooks', { body: { url: receiver.url } })
    receiver.answers = [500, 500]
    await control('/__mock/events', { body: { type: 'a.b', data: {} } })
    while (receiver.received.length < 2) await sleep(5)
    expect((await control('/__mock/reset', { method: 'POST' })).status).toBe(204)
    await sleep((retrySchedule[0] ?? 0) * 3)
    expect(receiver.received).toHaveLength(2)
    expect(await (await control('/__mock/webhooks/deliveries')).json()).toEqual([])
    expect(await (await control('/__mock/webhooks')).json()).toEqual([
      { id: expect.any(String), url: receiver.url, events: null },
    ])
  })
})

describe('an endpoint that refuses connections', () => {
  it('records a network error with its code, never the URL, and retries', async () => {
    const gone = await startReceiver()
    await gone.close()
    await control('/__mock/webhooks', { body: { url: gone.url } })
    await control('/__mock/events', { body: { type: 'a.b', data: {} } })
    await server.core.webhooks.settled()
    const deliveries = await (await control('/__mock/webhooks/deliveries')).json()
    const refused = deliveries.find((d: { delivered: boolean }) => !d.delivered)
    expect(refused.attempts).toEqual([
      { at: expect.any(String), error: 'network error (ECONNREFUSED)' },
      { at: expect.any(String), error: 'network error (ECONNREFUSED)' },
    ])
  })
})

describe('with a --state-file', () => {
  it('keeps webhook endpoints, secrets and deliveries out of the file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'webhooks-state-'))
    const stateFile = join(dir, 'state.jsonl')
    const persisted = await startServer({
      port: 0,
      stateFile,
      webhooks: [{ url: receiver.url, secret: startSecret }],
    })
    try {
      const event = await persisted.core.events.raise({ type: 'a.b', data: {} })
      await persisted.core.webhooks.settled()
      await persisted.core.reset()
      const text = await readFile(stateFile, 'utf8')
      expect(text.length).toBeGreaterThan(0)
      for (const secretOrId of [startSecret, event.id, receiver.url, 'whsec_']) {
        expect(text).not.toContain(secretOrId)
      }
    } finally {
      await persisted.close()
      await rm(dir, { recursive: true, force: true })
    }
  })
})

describe('closing the server', () => {
  it('cancels the retries still waiting', async () => {
    const own = await startReceiver()
    const closing = await startServer({
      port: 0,
      webhooks: [{ url: own.url }],
      webhookRetrySchedule: [60],
    })
    own.answers = [500, 500]
    await closing.core.events.raise({ type: 'a.b', data: {} })
    while (own.received.length === 0) await sleep(5)
    await closing.close()
    await closing.core.webhooks.settled()
    await sleep(200)
    expect(own.received).toHaveLength(1)
    await own.close()
  })
})
