import { ApiError, InvalidInput, parseOptions } from '../base/errors.ts'
import { RingBuffer } from '../base/ring-buffer.ts'
import type { Clock } from '../base/time.ts'
import { webhookLimits } from './limits.ts'
import {
  generateWebhookId,
  generateWebhookSecret,
  signWebhook,
  webhookSecretKey,
} from './signature.ts'
import {
  type RaisedWebhookEvent,
  type WebhookAttempt,
  type WebhookDelivery,
  type WebhookEndpoint,
  type WebhookEndpointInput,
  webhookEndpointInputSchema,
} from './webhook-schemas.ts'

/**
 * How a delivery of one message to one endpoint may end, each with what it means.
 *
 * @example Object.keys(deliveryOutcomes) // ['first-attempt', 'after-retries', 'given-up']
 */
export const deliveryOutcomes = {
  'first-attempt': 'delivered at its first attempt',
  'after-retries': 'delivered after one or more retries',
  'given-up': 'given up after its last retry failed',
} as const

export type DeliveryOutcome = keyof typeof deliveryOutcomes

/** How a mock's webhooks behave: the endpoints given at start, the retries, the clocks. */
export interface WebhookSettings {
  endpoints: readonly WebhookEndpointInput[]
  /**
   * The delays before each retry, in milliseconds, each counted from the attempt before it on the
   * clock of the organisation the event was raised for.
   */
  retrySchedule: readonly number[]
  /** How long one attempt may take before it counts as failed. */
  timeoutMs: number
  /**
   * The real clock: each attempt's `svix-timestamp`, which a receiver checks against its own clock
   * (Svix's libraries refuse one more than 5 minutes away), whatever time a test set.
   */
  real: Clock
  /** The clocks the retries follow. */
  clocks: DeliveryClocks
  /** How attempts are sent: the global `fetch` (looked up at each attempt) unless given. */
  transport?: WebhookTransport | undefined
  /** Told how each delivery ended (not one cancelled), with its event's type and organisation. */
  ended?: (outcome: DeliveryOutcome, type: string, orgId: string | undefined) => void
}

/**
 * The clock each delivery's retries follow: that of the organisation its event was raised for
 * (the mock's for an event of none).
 */
export interface DeliveryClocks {
  /** The time of the clock organisation `orgId` reads, in milliseconds. */
  timeOf(orgId: string | undefined): number
  /** Whether that clock stands still: no real time brings a retry due on it. */
  standsStill(orgId: string | undefined): boolean
}

/**
 * Sends one attempt: the status the receiver answered, or an `error` saying why it was not sent
 * (a refused address); throws when no answer came (`signal` aborted, a network error). Never
 * follows a redirect: Svix does not, so a 3xx is a failed attempt.
 */
export type WebhookTransport = (
  url: string,
  request: { headers: Record<string, string>; body: string; signal: AbortSignal },
) => Promise<{ status: number } | { error: string }>

/**
 * Attempts through the global `fetch`, looked up at each attempt, so that a test's MSW handler
 * (or a browser's worker) receives them. It checks nothing more than the URL's text (see
 * `webhookEndpointInputSchema`): where the platform has no resolver to ask, it cannot.
 */
const fetchTransport: WebhookTransport = async (url, { headers, body, signal }) => {
  const response = await fetch(url, { method: 'POST', headers, body, redirect: 'manual', signal })
  await response.body?.cancel().catch(() => undefined)
  return { status: response.status }
}

/**
 * The webhook endpoints of a mock and their deliveries, as `api.webhooks` exposes them.
 *
 * @example
 * const { secret } = api.webhooks.add({ url: 'https://receiver.test/webhooks' })
 * await api.events.raise({ type: 'notifications.sent', orgId: 'org-1', id: 'user-1' })
 * await api.webhooks.settled()
 * api.webhooks.deliveries() // [{ id: 'msg_…', endpoint: 'ep_…', attempts: [{ at, status: 200 }], delivered: true }]
 */
export interface WebhookControls {
  /** Registers an endpoint (gone after a reset); its secret is generated when not given. */
  add(endpoint: WebhookEndpointInput): WebhookEndpoint
  /** Removes an endpoint and cancels its pending retries; `false` when there was none. */
  remove(id: string): boolean
  /** The endpoints, with their secrets. */
  list(): WebhookEndpoint[]
  /** One entry per message and endpoint, oldest first (the newest 1,000). */
  deliveries(): WebhookDelivery[]
  /** Resolves when no delivery is queued, in flight or waiting for a retry. */
  settled(): Promise<void>
  /** Cancels every delivery queued, in flight or waiting for a retry. */
  cancel(): void
}

interface Endpoint extends WebhookEndpoint {
  key: Uint8Array
  /** Given at start: it survives a reset. */
  permanent: boolean
}

/** One message to one endpoint, until it is delivered, given up or cancelled. */
interface Delivery {
  record: WebhookDelivery
  endpoint: Endpoint
  body: string
  signal: AbortSignal
  /** The organisation the event was raised for: whose clock its retries follow. */
  orgId: string | undefined
  /** Its place among the deliveries: the order of those due at the same time. */
  order: number
  /** While it waits for a retry: when that is due, on its clock. */
  dueMs?: number
  /** While it waits for a retry on a clock that runs: the timer that makes it. */
  timer?: ReturnType<typeof setTimeout>
  /** Its attempt queued or under way, if any. */
  attempt?: Promise<void>
}

/**
 * Delivers events to the endpoints as Svix does: signed, retried on the schedule with the same
 * message id until a 2xx, first attempts in the order raised. Deliveries go out through the
 * settings' transport: the global `fetch` in-process, `node:http` in the standalone server. The
 * retries follow the clock of the event's organisation: a timer while it runs, nothing while it
 * stands still, and what an advance of it brings due at once ({@link advance}).
 */
export class Webhooks implements WebhookControls {
  readonly #settings: WebhookSettings
  readonly #endpoints = new Map<string, Endpoint>()
  readonly #deliveries = new RingBuffer<WebhookDelivery>(webhookLimits.keptDeliveries)
  /** The deliveries queued, in flight or waiting for a retry. */
  readonly #pending = new Set<Delivery>()
  /** Per endpoint, the end of its queue of first attempts. */
  #queues = new Map<string, Promise<void>>()
  #abort = new AbortController()
  #waiters: Array<() => void> = []
  /** The organisation each delivery's event was raised for. */
  readonly #orgOf = new WeakMap<WebhookDelivery, string>()
  #order = 0

  constructor(settings: WebhookSettings) {
    this.#settings = settings
    for (const endpoint of settings.endpoints) this.#register(endpoint, true)
  }

  add(endpoint: WebhookEndpointInput): WebhookEndpoint {
    if (this.#endpoints.size >= webhookLimits.endpoints) {
      throw new InvalidInput(`Invalid webhook: at most ${webhookLimits.endpoints} endpoints`)
    }
    return this.#register(endpoint, false)
  }

  remove(id: string): boolean {
    if (!this.#endpoints.delete(id)) return false
    for (const delivery of this.#pending) {
      // One under way finds its endpoint gone when it ends.
      if (delivery.endpoint.id !== id || delivery.dueMs === undefined) continue
      clearTimeout(delivery.timer)
      this.#finish(delivery)
    }
    return true
  }

  list(): WebhookEndpoint[] {
    return [...this.#endpoints.values()].map(({ id, url, secret, events }) => ({
      id,
      url,
      secret,
      events: events && [...events],
    }))
  }

  deliveries(): WebhookDelivery[] {
    return structuredClone(this.#deliveries.list())
  }

  settled(): Promise<void> {
    if (this.#pending.size === 0) return Promise.resolve()
    return new Promise((resolve) => this.#waiters.push(resolve))
  }

  cancel(): void {
    this.#abort.abort()
    this.#abort = new AbortController()
    for (const delivery of this.#pending) clearTimeout(delivery.timer)
    this.#pending.clear()
    this.#queues = new Map()
    this.#wakeWaiters()
  }

  /** Cancels and forgets the deliveries of events raised for organisation `orgId`. */
  forgetOrganisation(orgId: string): void {
    for (const delivery of this.#pending) {
      if (this.#orgOf.get(delivery.record) !== orgId) continue
      clearTimeout(delivery.timer)
      this.#finish(delivery)
    }
    this.#deliveries.removeWhere((record) => this.#orgOf.get(record) === orgId)
  }

  /** Cancels every delivery, forgets them, and drops the endpoints added since the start. */
  reset(): void {
    this.cancel()
    this.#deliveries.clear()
    for (const [id, endpoint] of this.#endpoints) {
      if (!endpoint.permanent) this.#endpoints.delete(id)
    }
  }

  /**
   * Queues `event` for every endpoint that receives its type. Refused (429) while too many
   * deliveries are pending.
   */
  publish(event: RaisedWebhookEvent, orgId?: string): void {
    const { id, ...envelope } = event
    const body = JSON.stringify(envelope)
    const targets = [...this.#endpoints.values()].filter(
      (endpoint) => endpoint.events === null || endpoint.events.includes(event.type),
    )
    if (this.#pending.size + targets.length > webhookLimits.pendingDeliveries) {
      throw new ApiError('tooManyPendingDeliveries')
    }
    for (const endpoint of targets) {
      const record = { id, endpoint: endpoint.id, type: event.type, attempts: [], delivered: false }
      this.#deliveries.add(record)
      if (orgId !== undefined) this.#orgOf.set(record, orgId)
      const delivery: Delivery = {
        record,
        endpoint,
        body,
        signal: this.#abort.signal,
        orgId,
        order: this.#order++,
      }
      this.#pending.add(delivery)
      const queue = this.#queues.get(endpoint.id) ?? Promise.resolve()
      // A first attempt goes out at once, whatever the clock.
      const first = this.#track(
        delivery,
        queue.then(() => this.#attempt(delivery)),
      )
      this.#queues.set(endpoint.id, first)
    }
  }

  /**
   * Runs `change` (a clock set anew) and keeps, for each retry waiting on the clock of an
   * organisation `affects` names, what was left of its delay: setting a clock is a jump, not time
   * passing, so a jump ahead brings no retry due and one back strands none.
   */
  async retime<T>(
    affects: (orgId: string | undefined) => boolean,
    change: () => Promise<T>,
  ): Promise<T> {
    const left = new Map<Delivery, number>()
    for (const delivery of this.#waiting(affects)) {
      clearTimeout(delivery.timer)
      left.set(delivery, Math.max(0, (delivery.dueMs as number) - this.#timeOf(delivery)))
    }
    try {
      return await change()
    } finally {
      for (const [delivery, ms] of left) {
        if (delivery.dueMs === undefined || !this.#pending.has(delivery)) continue
        delivery.dueMs = this.#timeOf(delivery) + ms
        this.#arm(delivery)
      }
    }
  }

  /**
   * Runs `change` (a clock moved on), then attempts every delivery of the organisations `affects`
   * names that falls due up to the clock's new time: in order of due time, one after another,
   * each at its due time, so that a retry brought due by a failure in the same advance is made too.
   * Resolves once each has been attempted; an attempt already queued or under way is awaited
   * first, as what it gives decides what falls due next.
   */
  async advance(
    affects: (orgId: string | undefined) => boolean,
    change: () => Promise<void>,
  ): Promise<void> {
    for (const delivery of this.#waiting(affects)) clearTimeout(delivery.timer)
    try {
      await change()
      for (;;) {
        const underWay = [...this.#pending].flatMap((delivery) =>
          delivery.attempt && affects(delivery.orgId) ? [delivery.attempt] : [],
        )
        if (underWay.length > 0) {
          await Promise.all(underWay)
          continue
        }
        let next: Delivery | undefined
        for (const delivery of this.#waiting(affects)) {
          if ((delivery.dueMs as number) > this.#timeOf(delivery)) continue
          if (next === undefined || isBefore(delivery, next)) next = delivery
        }
        if (next === undefined) return
        await this.#track(next, this.#attempt(next, next.dueMs))
      }
    } finally {
      for (const delivery of this.#waiting(affects)) this.#arm(delivery)
    }
  }

  #register(input: WebhookEndpointInput, permanent: boolean): WebhookEndpoint {
    const parsed = parseOptions(webhookEndpointInputSchema, input, 'webhook')
    const { url, events } = parsed
    const secret = parsed.secret ?? generateWebhookSecret()
    const key = webhookSecretKey(secret) as Uint8Array
    const endpoint = { id: generateWebhookId('ep'), url, secret, events: events ?? null }
    this.#endpoints.set(endpoint.id, { ...endpoint, key, permanent })
    return { ...endpoint, events: events ? [...events] : null }
  }

  /**
   * One attempt of `delivery`, at `atMs` on its clock (an advance's due time), or at the clock's
   * time; a failed one waits for the next retry, due its delay later on that clock.
   */
  async #attempt(delivery: Delivery, atMs?: number): Promise<void> {
    const { record, endpoint, body, signal } = delivery
    clearTimeout(delivery.timer)
    delivery.timer = undefined
    delivery.dueMs = undefined
    if (signal.aborted || !this.#pending.has(delivery)) return
    if (this.#endpoints.get(endpoint.id) !== endpoint) return this.#finish(delivery)
    const at = atMs ?? this.#timeOf(delivery)
    const timestamp = Math.floor(this.#settings.real().getTime() / 1000)
    const outcome = await this.#post(endpoint.url, body, signal, {
      'svix-id': record.id,
      'svix-timestamp': String(timestamp),
      'svix-signature': signWebhook(endpoint.key, record.id, timestamp, body),
    })
    if (signal.aborted || !this.#pending.has(delivery)) return
    record.attempts.push({ at: new Date(at).toISOString(), ...outcome })
    if (outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300) {
      record.delivered = true
      this.#ended(record, record.attempts.length === 1 ? 'first-attempt' : 'after-retries')
      return this.#finish(delivery)
    }
    const delay = this.#settings.retrySchedule[record.attempts.length - 1]
    if (delay === undefined) this.#ended(record, 'given-up')
    if (delay === undefined || this.#endpoints.get(endpoint.id) !== endpoint) {
      return this.#finish(delivery)
    }
    delivery.dueMs = at + delay
    // Made at its clock's time: the retry is its delay away (a retry an advance made is due when
    // the clock reads its due time, which that advance may have passed already).
    this.#arm(delivery, atMs === undefined ? delay : undefined)
  }

  /** Notes `attempt` as `delivery`'s attempt under way until it ends; gives it back. */
  #track(delivery: Delivery, attempt: Promise<void>): Promise<void> {
    const tracked: Promise<void> = attempt.finally(() => {
      if (delivery.attempt === tracked) delivery.attempt = undefined
    })
    delivery.attempt = tracked
    return tracked
  }

  /**
   * Sets the timer of a delivery waiting for a retry, for when it falls due on its clock (`wait`
   * milliseconds of real time, or until the clock reads its due time); none while that clock
   * stands still (an advance makes the retry). A clock that runs runs at the real pace.
   */
  #arm(delivery: Delivery, wait?: number): void {
    clearTimeout(delivery.timer)
    delivery.timer = undefined
    const { dueMs, orgId } = delivery
    if (dueMs === undefined || this.#settings.clocks.standsStill(orgId)) return
    delivery.timer = setTimeout(
      () => void this.#track(delivery, this.#attempt(delivery)),
      wait ?? Math.max(0, dueMs - this.#timeOf(delivery)),
    )
    // A retry waiting for hours must not keep a test run or a CLI process alive on its own.
    ;(delivery.timer as { unref?: () => void }).unref?.()
  }

  /** The time of `delivery`'s clock. */
  #timeOf(delivery: Delivery): number {
    return this.#settings.clocks.timeOf(delivery.orgId)
  }

  /** The deliveries waiting for a retry, of the organisations `affects` names. */
  #waiting(affects: (orgId: string | undefined) => boolean): Delivery[] {
    return [...this.#pending].filter(
      (delivery) =>
        delivery.dueMs !== undefined && delivery.attempt === undefined && affects(delivery.orgId),
    )
  }

  async #post(
    url: string,
    body: string,
    signal: AbortSignal,
    headers: Record<string, string>,
  ): Promise<Omit<WebhookAttempt, 'at'>> {
    const { timeoutMs, transport = fetchTransport } = this.#settings
    const timeout = AbortSignal.timeout(timeoutMs)
    try {
      return await transport(url, {
        headers: { 'content-type': 'application/json', ...headers },
        body,
        signal: AbortSignal.any([signal, timeout]),
      })
    } catch (error) {
      return {
        error: timeout.aborted ? `no answer within ${timeoutMs} ms` : describeFailure(error),
      }
    }
  }

  #ended(record: WebhookDelivery, outcome: DeliveryOutcome): void {
    this.#settings.ended?.(outcome, record.type, this.#orgOf.get(record))
  }

  #finish(delivery: Delivery): void {
    this.#pending.delete(delivery)
    if (this.#pending.size === 0) this.#wakeWaiters()
  }

  #wakeWaiters(): void {
    const waiters = this.#waiters
    this.#waiters = []
    for (const wake of waiters) wake()
  }
}

/** Whether `a` falls due before `b`: the earlier due time, then the one raised first. */
function isBefore(a: Delivery, b: Delivery): boolean {
  return (a.dueMs as number) < (b.dueMs as number) || (a.dueMs === b.dueMs && a.order < b.order)
}

/** Why an attempt got no answer, without the URL or anything else the error may carry. */
function describeFailure(error: unknown): string {
  // `fetch` puts the system's code on the error's cause, `node:http` on the error itself.
  const { code } = (error instanceof Error ? (error.cause ?? error) : {}) as { code?: unknown }
  return typeof code === 'string' ? `network error (${code})` : 'network error'
}
