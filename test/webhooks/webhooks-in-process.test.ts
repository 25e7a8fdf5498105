import { HttpResponse, http } from 'msw'
import { setupServer } from 'msw/node'
import { Webhook, WebhookVerificationError } from 'svix'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import {
  ApiError,
  createMockApi,
  notificationsSentEventSchema,
  userCourseStartedEventSchema,
} from '../../src/root/index.ts'
import { generateWebhookSecret } from '../../src/webhooks/signature.ts'
import {
  expectSignedDelivery,
  plainHeaders,
  type ReceivedDelivery,
} from '../support/webhook-delivery.ts'

/**
 * Webhooks in-process: `createMockApi` delivers through the global `fetch`, and this test's own
 * MSW handler is the receiver, beside the mock's handlers in one `setupServer`.
 */

const receiverUrl = 'https://receiver.test/webhooks'
const startUrl = 'https://receiver.test/start'
const retrySchedule = [40, 80]
const timeoutMs = 300
const key = 'acme-key'
// Each reading of the clock is one second later, so that every attempt has its own timestamp.
let clock = Date.now()
const api = createMockApi({
  organisations: [{ orgId: 'acme', apiKeys: [key], users: 4 }],
  webhooks: [{ url: startUrl, events: ['user.course.started'] }],
  webhookRetrySchedule: retrySchedule,
  webhookTimeoutMs: timeoutMs,
  now: () => {
    clock += 1000
    return new Date(clock)
  },
})

const received: Record<string, ReceivedDelivery[]> = { [receiverUrl]: [], [startUrl]: [] }
/** What the receiver answers next, in order; 200 once they are used up. */
let answers: Array<number | 'hang'> = []

async function receive(url: string, request: Request) {
  received[url]?.push({
    headers: plainHeaders(request.headers),
    body: await request.text(),
    receivedAt: performance.now(),
  })
  const answer = answers.shift() ?? 200
  if (answer === 'hang') await new Promise((resolve) => setTimeout(resolve, timeoutMs * 3))
  return new HttpResponse(null, { status: answer === 'hang' ? 200 : answer })
}

const hangingUrl = 'https://receiver.test/hanging'
let releaseHanging = () => {}
const hanging = new Promise<void>((resolve) => {
  releaseHanging = resolve
})

const server = setupServer(
  http.post(hangingUrl, async () => {
    await hanging
    return new HttpResponse(null, { status: 200 })
  }),
  ...api.handlers,
  http.post(receiverUrl, ({ request }) => receive(receiverUrl, request)),
  http.post(startUrl, ({ request }) => receive(startUrl, request)),
)
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }))
afterEach(async () => {
  await api.reset()
  answers = []
  for (const list of Object.values(received)) list.length = 0
})
afterAll(() => server.close())

async function acmeUsers() {
  await api.ready
  return api.db.users.findMany((q) => q.where({ orgId: 'acme' }))
}

async function firstUser() {
  const [user] = await acmeUsers()
  if (!user) throw new Error('no seeded user')
  return user
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('api.events.raise, delivered to an MSW handler', () => {
  it('signs every delivery so that svix verifies it, with the published envelope', async () => {
    const { secret } = api.webhooks.add({ url: receiverUrl })
    const user = await firstUser()
    const progress = api.db.learningProgress.findFirst((q) => q.where({ userId: user.userId }))
    const notified = await api.events.raise({
      type: 'notifications.sent',
      orgId: 'acme',
      id: user.id,
    })
    const started = await api.events.raise({
      type: 'user.course.started',
      orgId: 'acme',
      id: user.id,
    })
    const custom = await api.events.raise({ type: 'user.registered', data: { user_id: 'u-9' } })
    await api.webhooks.settled()

    const deliveries = received[receiverUrl] ?? []
    expect(deliveries.map((d) => d.headers['svix-id'])).toEqual([
      notified.id,
      started.id,
      custom.id,
    ])
    const [first, second, third] = deliveries.map((d) => expectSignedDelivery(d, secret))
    expect(notificationsSentEventSchema.parse(first)).toEqual({
      object: 'event',
      type: 'notifications.sent',
      api_version: '2022-11-15',
      timestamp: notified.timestamp,
      data: {
        notifications: [
          {
            title: expect.any(String),
            body: expect.any(String),
            path: '/learning',
            user_id: user.userId,
            custom_id: user.id,
            phone_number: null,
          },
        ],
      },
    })
    expect(userCourseStartedEventSchema.parse(second).data).toEqual({
      user_id: user.userId,
      custom_id: user.id,
      phone_number: null,
      course_id: progress?.learningPathId ?? 'course-1',
    })
    expect(third).toMatchObject({ type: 'user.registered', data: { user_id: 'u-9' } })
    // The body raise returns is the delivered one, with its message id.
    const { id, ...envelope } = notified
    expect(JSON.parse(deliveries[0]?.body ?? '')).toEqual(envelope)
    expect(id).toMatch(/^msg_/)
  })

  it('is refused by svix with a tampered body or another secret', async () => {
    const { secret } = api.webhooks.add({ url: receiverUrl })
    const user = await firstUser()
    await api.events.raise({ type: 'notifications.sent', orgId: 'acme', id: user.id, title: 'Hi' })
    await api.webhooks.settled()
    const [delivery] = received[receiverUrl] ?? []
    if (!delivery) throw new Error('nothing delivered')
    expect(() => new Webhook(secret).verify(delivery.body, delivery.headers)).not.toThrow()
    const tampered = delivery.body.replace('"Hi"', '"Hey"')
    expect(tampered).not.toBe(delivery.body)
    expect(() => new Webhook(secret).verify(tampered, delivery.headers)).toThrow(
      WebhookVerificationError,
    )
    expect(() =>
      new Webhook(generateWebhookSecret()).verify(delivery.body, delivery.headers),
    ).toThrow(WebhookVerificationError)
  })

  it('fills title, body, path and course from the input when given', async () => {
    const { secret } = api.webhooks.add({ url: receiverUrl })
    const user = await firstUser()
    await api.events.raise({
      type: 'notifications.sent',
      orgId: 'acme',
      id: user.id,
      title: 'Due Friday',
      body: 'Finish your course',
      path: '/courses',
    })
    await api.events.raise({
      type: 'user.course.started',
      orgId: 'acme',
      id: user.id,
      courseId: 'c-7',
    })
    await api.webhooks.settled()
    const [notified, started] = (received[receiverUrl] ?? []).map((d) =>
      expectSignedDelivery(d, secret),
    )
    expect(notified?.data).toMatchObject({
      notifications: [{ title: 'Due Friday', body: 'Finish your course', path: '/courses' }],
    })
    expect(started?.data).toMatchObject({ course_id: 'c-7' })
  })

  it('keeps a late timestamp in the body, in the envelope format', async () => {
    const { secret } = api.webhooks.add({ url: receiverUrl })
    const user = await firstUser()
    const event = await api.events.raise({
      type: 'notifications.sent',
      orgId: 'acme',
      id: user.id,
      timestamp: '2025-01-02T03:04:05+02:00',
    })
    await api.webhooks.settled()
    expect(event.timestamp).toBe('2025-01-02T01:04:05.000Z')
    const [delivery] = received[receiverUrl] ?? []
    if (!delivery) throw new Error('nothing delivered')
    expect(expectSignedDelivery(delivery, secret).timestamp).toBe('2025-01-02T01:04:05.000Z')
  })

  it('retries a 500 with the same svix-id, a fresh timestamp and signature, after the schedule', async () => {
    const { secret, id: endpoint } = api.webhooks.add({ url: receiverUrl })
    const user = await firstUser()
    answers = [500, 200]
    const event = await api.events.raise({ type: 'notifications.sent', orgId: 'acme', id: user.id })
    await api.webhooks.settled()
    const [first, second, ...rest] = received[receiverUrl] ?? []
    if (!first || !second) throw new Error('expected two attempts')
    expect(rest).toEqual([])
    for (const attempt of [first, second]) expectSignedDelivery(attempt, secret)
    expect(second.headers['svix-id']).toBe(first.headers['svix-id'])
    expect(second.headers['svix-timestamp']).not.toBe(first.headers['svix-timestamp'])
    expect(second.headers['svix-signature']).not.toBe(first.headers['svix-signature'])
    expect(second.body).toBe(first.body)
    expect(second.receivedAt - first.receivedAt).toBeGreaterThanOrEqual((retrySchedule[0] ?? 0) - 1)
    expect(api.webhooks.deliveries()).toEqual([
      {
        id: event.id,
        endpoint,
        type: 'notifications.sent',
        attempts: [
          { at: expect.stringMatching(/Z$/), status: 500 },
          { at: expect.stringMatching(/Z$/), status: 200 },
        ],
        delivered: true,
      },
    ])
  })

  it('gives up after the last retry of the schedule', async () => {
    api.webhooks.add({ url: receiverUrl })
    answers = [500, 503, 404, 200]
    await api.events.raise({ type: 'x.y', data: {} })
    await api.webhooks.settled()
    expect(received[receiverUrl]).toHaveLength(retrySchedule.length + 1)
    const [delivery] = api.webhooks.deliveries()
    expect(delivery?.attempts.map((a) => a.status)).toEqual([500, 503, 404])
    expect(delivery?.delivered).toBe(false)
  })

  it('does not follow a redirect: a 3xx is a failed attempt, retried', async () => {
    api.webhooks.add({ url: receiverUrl })
    answers = [307, 200]
    await api.events.raise({ type: 'x.y', data: {} })
    await api.webhooks.settled()
    expect(api.webhooks.deliveries()[0]?.attempts.map((a) => a.status)).toEqual([307, 200])
  })

  it('counts an attempt that outlasts the timeout as failed, and retries it', async () => {
    api.webhooks.add({ url: receiverUrl })
    answers = ['hang', 200]
    await api.events.raise({ type: 'x.y', data: {} })
    await api.webhooks.settled()
    const [delivery] = api.webhooks.deliveries()
    expect(delivery?.attempts).toEqual([
      { at: expect.any(String), error: `no answer within ${timeoutMs} ms` },
      { at: expect.any(String), status: 200 },
    ])
    expect(delivery?.delivered).toBe(true)
  })

  it('sends first attempts in the order raised', async () => {
    api.webhooks.add({ url: receiverUrl })
    const raised = []
    for (let i = 0; i < 8; i++) raised.push(await api.events.raise({ type: `t.${i}`, data: { i } }))
    await api.webhooks.settled()
    expect((received[receiverUrl] ?? []).map((d) => d.headers['svix-id'])).toEqual(
      raised.map((e) => e.id),
    )
  })

  it('delivers to an endpoint only the event types it lists', async () => {
    const user = await firstUser()
    await api.events.raise({ type: 'notifications.sent', orgId: 'acme', id: user.id })
    await api.events.raise({ type: 'user.course.started', orgId: 'acme', id: user.id })
    await api.webhooks.settled()
    const types = (received[startUrl] ?? []).map((d) => JSON.parse(d.body).type)
    expect(types).toEqual(['user.course.started'])
  })

  it('refuses an event for a deleted or unknown user with 404 User not found, delivering nothing', async () => {
    api.webhooks.add({ url: receiverUrl })
    const user = await firstUser()
    const deleted = await fetch(`https://api.example.test/api/v1/users/acme/${user.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${key}` },
    })
    expect(deleted.status).toBe(200)
    for (const input of [
      { type: 'notifications.sent', orgId: 'acme', id: user.id },
      { type: 'user.course.started', orgId: 'acme', id: user.id },
      { type: 'notifications.sent', orgId: 'nowhere', id: user.id },
    ] as const) {
      const refusal = api.events.raise(input)
      await expect(refusal).rejects.toBeInstanceOf(ApiError)
      await expect(refusal).rejects.toMatchObject({ status: 404, message: 'User not found' })
    }
    await api.webhooks.settled()
    expect(received[receiverUrl]).toEqual([])
    expect(api.webhooks.deliveries()).toEqual([])
  })

  it('refuses invalid events with a TypeError that says what is wrong', async () => {
    const user = await firstUser()
    const cases: Array<[unknown, RegExp]> = [
      [{ orgId: 'acme', id: user.id }, /^Invalid event: type: /],
      [{ type: 'notifications.sent', orgId: 'acme', id: user.id, extra: 1 }, /"extra"/],
      [
        { type: 'notifications.sent', orgId: 'acme', id: user.id, timestamp: 'yesterday' },
        /timestamp/,
      ],
      [
        {
          type: 'notifications.sent',
          orgId: 'acme',
          id: user.id,
          timestamp: '2025-01-02T03:04:05',
        },
        /timestamp/,
      ],
      [{ type: 'user.course.started', orgId: 'acme' }, /id: /],
      [{ type: 'other.thing' }, /data: /],
      [{ type: 'bad type', data: {} }, /type: /],
      [{ type: 'big', data: { blob: 'x'.repeat(70_000) } }, /over the limit of 65536/],
    ]
    for (const [input, message] of cases) {
      await expect(api.events.raise(input as never)).rejects.toThrow(TypeError)
      await expect(api.events.raise(input as never)).rejects.toThrow(message)
    }
  })
})

describe('api.webhooks', () => {
  it('adds endpoints with a generated Svix secret, lists them, and removes them', () => {
    const added = api.webhooks.add({ url: receiverUrl, events: ['notifications.sent'] })
    expect(added).toEqual({
      id: expect.stringMatching(/^ep_[0-9A-Za-z]{27}$/),
      url: receiverUrl,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{32}$/),
      events: ['notifications.sent'],
    })
    const given = generateWebhookSecret()
    expect(api.webhooks.add({ url: receiverUrl, secret: given }).secret).toBe(given)
    expect(api.webhooks.list().map((e) => e.url)).toEqual([startUrl, receiverUrl, receiverUrl])
    expect(api.webhooks.remove(added.id)).toBe(true)
    expect(api.webhooks.remove(added.id)).toBe(false)
    expect(api.webhooks.list()).toHaveLength(2)
  })

  it('refuses a bad endpoint with a TypeError that says what is wrong', () => {
    for (const [endpoint, message] of [
      [{ url: 'ftp://receiver.test/x' }, /url: expected an http: or https: URL/],
      [{ url: 'javascript:alert(1)' }, /url: /],
      [{ url: 'https://user:pass@receiver.test/x' }, /must not carry credentials/],
      [{ url: `https://receiver.test/${'a'.repeat(2048)}` }, /url: /],
      [{ url: receiverUrl, secret: 'not-a-secret' }, /secret: expected whsec_/],
      [{ url: receiverUrl, secret: 'whsec_c2hvcnQ=' }, /secret: /],
      [{ url: receiverUrl, events: [] }, /events: /],
      [{ url: receiverUrl, other: true }, /"other"/],
    ] as const) {
      expect(() => api.webhooks.add(endpoint as never)).toThrow(TypeError)
      expect(() => api.webhooks.add(endpoint as never)).toThrow(message)
    }
    expect(api.webhooks.list()).toHaveLength(1)
  })

  it('keeps at most 100 endpoints', () => {
    while (api.webhooks.list().length < 100) api.webhooks.add({ url: receiverUrl })
    expect(() => api.webhooks.add({ url: receiverUrl })).toThrow(/at most 100 endpoints/)
  })

  it('reset cancels pending retries, clears deliveries and keeps only the endpoints given at start', async () => {
    const { id: added } = api.webhooks.add({ url: receiverUrl })
    answers = [500, 500, 500]
    await api.events.raise({ type: 'x.y', data: {} })
    while ((received[receiverUrl] ?? []).length === 0) await sleep(5)
    await api.reset()
    await api.webhooks.settled()
    await sleep((retrySchedule[0] ?? 0) * 3)
    expect(received[receiverUrl]).toHaveLength(1)
    expect(api.webhooks.deliveries()).toEqual([])
    expect(api.webhooks.list().map((e) => e.id)).not.toContain(added)
    expect(api.webhooks.list().map((e) => e.url)).toEqual([startUrl])
  })

  it('remove cancels the pending retries of that endpoint', async () => {
    const { id } = api.webhooks.add({ url: receiverUrl })
    answers = [500, 500, 500]
    await api.events.raise({ type: 'x.y', data: {} })
    while ((received[receiverUrl] ?? []).length === 0) await sleep(5)
    api.webhooks.remove(id)
    await api.webhooks.settled()
    await sleep((retrySchedule[0] ?? 0) * 3)
    expect(received[receiverUrl]).toHaveLength(1)
    expect(api.webhooks.deliveries()[0]?.delivered).toBe(false)
  })

  it('refuses new events (429) while 1,000 deliveries are pending, until they are cancelled', async () => {
    const busy = createMockApi({ seededOrganisations: 0, webhookTimeoutMs: 60_000 })
    for (let i = 0; i < 10; i++) busy.webhooks.add({ url: hangingUrl })
    try {
      for (let i = 0; i < 100; i++) await busy.events.raise({ type: 'x.y', data: { i } })
      const refusal = busy.events.raise({ type: 'x.y', data: {} })
      await expect(refusal).rejects.toBeInstanceOf(ApiError)
      await expect(refusal).rejects.toMatchObject({ status: 429 })
      busy.webhooks.cancel()
      await busy.webhooks.settled()
      await expect(busy.events.raise({ type: 'x.y', data: {} })).resolves.toMatchObject({
        type: 'x.y',
      })
    } finally {
      busy.webhooks.cancel()
      releaseHanging()
    }
  })
})

describe('the deliveries kept', () => {
  afterEach(() => {
    vi.unstubAllGlobals()
  })

  it('are the newest 1,000', async () => {
    // A global fetch that answers at once: deliveries go through whichever fetch is global.
    const posted: string[] = []
    vi.stubGlobal('fetch', async (_url: string, init: RequestInit) => {
      posted.push(new Headers(init.headers).get('svix-id') ?? '')
      return new Response(null, { status: 204 })
    })
    const many = createMockApi({ seededOrganisations: 0, webhooks: [{ url: receiverUrl }] })
    const raised = []
    for (let i = 0; i < 1001; i++)
      raised.push(await many.events.raise({ type: 'x.y', data: { i } }))
    await many.webhooks.settled()
    expect(posted).toEqual(raised.map((e) => e.id))
    const kept = many.webhooks.deliveries()
    expect(kept).toHaveLength(1000)
    expect(kept.map((d) => d.id)).toEqual(raised.slice(1).map((e) => e.id))
    expect(kept.every((d) => d.delivered)).toBe(true)
  })
})
