import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { type RunningServer, startServer } from 'identify-api-mock/server'
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
import { createWebhookReceiver, type Push } from './webhook-receiver.ts'

const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'
const pushes: Push[] = []
/** How many of the next pushes the stub fails. */
let failingPushes = 0
async function sendPush(push: Push) {
  if (failingPushes > 0) {
    failingPushes--
    throw new Error('push service unavailable')
  }
  pushes.push(push)
}

let backend: Server
let mock: RunningServer

beforeAll(async () => {
  backend = createServer(createWebhookReceiver({ secret, sendPush }))
  await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve))
  const { port } = backend.address() as AddressInfo
  mock = await startServer({
    port: 0,
    webhooks: [{ url: `http://127.0.0.1:${port}/webhooks`, secret }],
    webhookRetrySchedule: [20, 20],
  })
})
afterEach(async () => {
  await mock.core.reset()
  pushes.length = 0
  failingPushes = 0
})
afterAll(async () => {
  await mock.close()
  backend.closeAllConnections()
  backend.close()
})

async function raise(event: Record<string, unknown>) {
  const res = await fetch(`${mock.url}/__mock/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(event),
  })
  expect(res.status).toBe(202)
  await mock.core.webhooks.settled()
}

async function aUser() {
  const [user] = (await mock.core.state()).users
  if (!user) throw new Error('no seeded user')
  return user
}

it('forwards a notification to the push sender, for the app’s own user id', async () => {
  const user = await aUser()
  await raise({
    type: 'notifications.sent',
    orgId: user.orgId,
    id: user.id,
    title: 'Your course is due',
    body: 'Finish it by Friday',
    path: '/learning',
  })
  expect(pushes).toEqual([
    {
      userId: user.id,
      title: 'Your course is due',
      body: 'Finish it by Friday',
      path: '/learning',
    },
  ])
  expect(mock.core.webhooks.deliveries()[0]?.attempts.map((a) => a.status)).toEqual([204])
})

it('acknowledges other event types without a push', async () => {
  const user = await aUser()
  await raise({ type: 'user.course.started', orgId: user.orgId, id: user.id })
  expect(pushes).toEqual([])
  expect(mock.core.webhooks.deliveries()[0]?.delivered).toBe(true)
})

it('answers 500 when the push fails, and sends it once on the platform’s retry', async () => {
  const user = await aUser()
  failingPushes = 1
  await raise({ type: 'notifications.sent', orgId: user.orgId, id: user.id })
  expect(pushes).toHaveLength(1)
  expect(mock.core.webhooks.deliveries()[0]?.attempts.map((a) => a.status)).toEqual([500, 204])
})

it('refuses a request that is not signed with its secret', async () => {
  const { port } = backend.address() as AddressInfo
  const res = await fetch(`http://127.0.0.1:${port}/webhooks`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'svix-id': 'msg_forged',
      'svix-timestamp': String(Math.floor(Date.now() / 1000)),
      'svix-signature': 'v1,AAAA',
    },
    body: JSON.stringify({ type: 'notifications.sent', data: { notifications: [] } }),
  })
  expect(res.status).toBe(400)
  expect(pushes).toEqual([])
})

it("met its event types and the deliveries' outcomes but one: the mock's coverage", () => {
  const met = mock.core.coverage().items.filter((item) => item.count > 0)
  expect(met.map((item) => item.id)).toEqual([
    'webhook.event.notifications.sent',
    'webhook.event.user.course.started',
    'webhook.delivery.first-attempt',
    'webhook.delivery.after-retries',
  ])
})
