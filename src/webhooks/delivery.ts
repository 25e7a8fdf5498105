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
  type OwnedWebhookEndpointInput,
  ownedWebhookEndpointInputSchema,
  type RaisedWebhookEvent,
  type WebhookAttempt,
  type WebhookDelivery,
  type WebhookEndpoint,
  type WebhookEndpointInput,
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
  /** Whether the mock has organisation `orgId`: only those may own an endpoint. */
  has?: (orgId: string) => boolean
  /**
   * The pending deliveries the events of one organisation (or those of none) may hold while
   * another's need room in the pool (`webhookLimits.pendingDeliveries`): see {@link Webhooks.publish}.
   */
  pendingShare?: number
}

/**
 * Whose endpoints or deliveries: with `orgId`, that organisation's alone; without, every one (the
 * mock's and every organisation's).
 */
export interface WebhookScope {
  orgId?: string | undefined
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
  /**
   * Registers an endpoint (gone after a reset of the whole mock, and with its organisation);
   * its secret is generated when not given. With `orgId`, the organisation's: it receives only
   * that organisation's events (404 `Not found` for one the mock does not have); without, the
   * mock's: it receives every event.
   */
  add(endpoint: OwnedWebhookEndpointInput): WebhookEndpoint
  /**
   * Removes an endpoint and cancels its pending retries; `false` when there was none (with
   * `orgId`, none of that organisation's).
   */
  remove(id: string, scope?: WebhookScope): boolean
  /** The endpoints, with their secrets; with `orgId`, that organisation's alone. */
  list(scope?: WebhookScope): WebhookEndpoint[]
  /**
   * One entry per message and endpoint, oldest first (the newest 1,000 of the mock's endpoints,
   * and of each organisation's endpoints its newest 250); with `orgId`, those of its endpoints.
   */
  deliveries(scope?: WebhookScope): WebhookDelivery[]
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

/** A delivery's entry as kept: its record, its place among all, its event's organisation. */
interface KeptDelivery {
  record: WebhookDelivery
  order: number
  orgId: string | undefined
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
  /** Every endpoint, by id. */
  readonly #endpoints = new Map<string, Endpoint>()
  /** The endpoints of each owner (`undefined`: the mock's), in the order added. */
  readonly #owned = new Map<string | undefined, Map<string, Endpoint>>()
  /** The deliveries to the mock's endpoints. */
  readonly #deliveries = new RingBuffer<KeptDelivery>(webhookLimits.keptDeliveries)
  /** The deliveries to each organisation's endpoints, bounded apart: none evicts another's. */
  readonly #ownDeliveries = new Map<string, RingBuffer<KeptDelivery>>()
  /** The deliveries queued, in flight or waiting for a retry. */
  readonly #pending = new Set<Delivery>()
  /** How many of {@link #pending} the events of each organisation (or of none) hold. */
  readonly #held = new Map<string | undefined, number>()
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

  add(endpoint: OwnedWebhookEndpointInput): WebhookEndpoint {
    const { orgId } = parseOptions(ownedWebhookEndpointInputSchema, endpoint, 'webhook')
    if (orgId !== undefined && !(this.#settings.has?.(orgId) ?? true)) {
      throw new ApiError('notFound')
    }
    const bound =
      orgId === undefined ? webhookLimits.endpoints : webhookLimits.endpointsPerOrganisation
    if ((this.#owned.get(orgId)?.size ?? 0) >= bound) {
      throw new InvalidInput(
        `Invalid webhook: at most ${bound} endpoints ${orgId === undefined ? 'of the mock' : 'per organisation'}`,
      )
    }
    return this.#register(endpoint, false)
  }

  remove(id: string, scope: WebhookScope = {}): boolean {
    const endpoint = this.#endpoints.get(id)
    if (!endpoint || (scope.orgId !== undefined && endpoint.orgId !== scope.orgId)) return false
    this.#unregister(endpoint)
    return true
  }

  list(scope: WebhookScope = {}): WebhookEndpoint[] {
    return this.endpointsOf(scope).map(({ id, url, secret, events, orgId }) => ({
      id,
      url,
      secret,
      events: events && [...events],
      ...(orgId !== undefined && { orgId }),
    }))
  }

  /**
   * The endpoints themselves (secrets and keys included), oldest first: every one, or with
   * `orgId` that organisation's (404 `Not found` for one the mock does not have). The one place
   * that says which endpoints an organisation owns.
   */
  endpointsOf(scope: WebhookScope = {}): readonly Endpoint[] {
    const { orgId } = scope
    if (orgId === undefined) return [...this.#endpoints.values()]
    if (!(this.#settings.has?.(orgId) ?? true)) throw new ApiError('notFound')
    return [...(this.#owned.get(orgId)?.values() ?? [])]
  }

  deliveries(scope: WebhookScope = {}): WebhookDelivery[] {
    const { orgId } = scope
    let kept: KeptDelivery[]
    if (orgId !== undefined) {
      if (!(this.#settings.has?.(orgId) ?? true)) throw new ApiError('notFound')
      kept = this.#ownDeliveries.get(orgId)?.list() ?? []
    } else {
      kept = this.#deliveries.list()
      for (const ring of this.#ownDeliveries.values()) kept.push(...ring.list())
      kept.sort((a, b) => a.order - b.order)
    }
    return structuredClone(kept.map(({ record }) => record))
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
    this.#held.clear()
    this.#queues = new Map()
    this.#wakeWaiters()
  }

  /**
   * Cancels and forgets the deliveries of events raised for organisation `orgId` (its reset): its
   * endpoints stay.
   */
  forgetOrganisation(orgId: string): void {
    for (const delivery of this.#pending) {
      if (delivery.orgId !== orgId) continue
      clearTimeout(delivery.timer)
      this.#finish(delivery)
    }
    this.#deliveries.removeWhere((kept) => kept.orgId === orgId)
    this.#ownDeliveries.delete(orgId)
  }

  /** Forgets organisation `orgId`, removed: its deliveries, as {@link forgetOrganisation}, and its endpoints. */
  removeOrganisation(orgId: string): void {
    this.forgetOrganisation(orgId)
    for (const endpoint of this.#owned.get(orgId)?.values() ?? []) this.#unregister(endpoint)
    this.#owned.delete(orgId)
  }

  /** Cancels every delivery, forgets them, and drops the endpoints added since the start. */
  reset(): void {
    this.cancel()
    this.#deliveries.clear()
    this.#ownDeliveries.clear()
    for (const endpoint of this.#endpoints.values()) {
      if (!endpoint.permanent) this.#unregister(endpoint)
    }
  }

  /**
   * Queues `event` for every endpoint that receives its type: the mock's, and those of the
   * organisation it was raised for. The deliveries pending are one pool, of which the events of
   * each organisation (and those of none) hold a share: while the pool has room, any may take
   * it; when it has none, the largest holder gives way. An event whose organisation would then
   * hold past its share, or that holds the most itself, is refused (429); otherwise the newest
   * pending delivery of the largest holder past its share is given up to make room (its last
   * attempt says so), and only when every holder is within its share is the event refused.
   */
  publish(event: RaisedWebhookEvent, orgId?: string): void {
    const { id, ...envelope } = event
    const body = JSON.stringify(envelope)
    const receives = (endpoint: Endpoint) =>
      endpoint.events === null || endpoint.events.includes(event.type)
    const targets = [...(this.#owned.get(undefined)?.values() ?? [])].filter(receives)
    if (orgId !== undefined) {
      targets.push(...[...(this.#owned.get(orgId)?.values() ?? [])].filter(receives))
    }
    this.#makeRoom(orgId, targets.length)
    for (const endpoint of targets) {
      const record = { id, endpoint: endpoint.id, type: event.type, attempts: [], delivered: false }
      const kept = { record, order: this.#order, orgId }
      if (endpoint.orgId === undefined) this.#deliveries.add(kept)
      else this.#keptOf(endpoint.orgId).add(kept)
      if (orgId !== undefined) this.#orgOf.set(record, orgId)
      const delivery: Delivery = {
        record,
        endpoint,
        body,
        signal: this.#abort.signal,
        orgId,
        order: this.#order++,
      }
      this.#hold(delivery)
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

  #register(input: OwnedWebhookEndpointInput, permanent: boolean): WebhookEndpoint {
    const parsed = parseOptions(ownedWebhookEndpointInputSchema, input, 'webhook')
    const { url, events, orgId } = parsed
    const secret = parsed.secret ?? generateWebhookSecret()
    const key = webhookSecretKey(secret) as Uint8Array
    const endpoint = {
      id: generateWebhookId('ep'),
      url,
      secret,
      events: events ?? null,
      ...(orgId !== undefined && { orgId }),
    }
    const kept: Endpoint = { ...endpoint, key, permanent }
    this.#endpoints.set(endpoint.id, kept)
    let owned = this.#owned.get(orgId)
    if (!owned) {
      owned = new Map()
      this.#owned.set(orgId, owned)
    }
    owned.set(endpoint.id, kept)
    return { ...endpoint, events: events ? [...events] : null }
  }

  /** Removes `endpoint` and cancels its retries (one under way finds it gone when it ends). */
  #unregister(endpoint: Endpoint): void {
    this.#endpoints.delete(endpoint.id)
    const owned = this.#owned.get(endpoint.orgId)
    owned?.delete(endpoint.id)
    if (owned?.size === 0) this.#owned.delete(endpoint.orgId)
    for (const delivery of this.#pending) {
      if (delivery.endpoint !== endpoint || delivery.dueMs === undefined) continue
      clearTimeout(delivery.timer)
      this.#finish(delivery)
    }
  }

  /** The ring of the deliveries to organisation `orgId`'s endpoints. */
  #keptOf(orgId: string): RingBuffer<KeptDelivery> {
    let ring = this.#ownDeliveries.get(orgId)
    if (!ring) {
      ring = new RingBuffer(webhookLimits.keptDeliveriesPerOrganisation)
      this.#ownDeliveries.set(orgId, ring)
    }
    return ring
  }

  /**
   * Makes room in the pool for `count` deliveries of an event of `orgId` (see {@link publish}),
   * or refuses the event (429).
   */
  #makeRoom(orgId: string | undefined, count: number): void {
    const cap = webhookLimits.pendingDeliveries
    const share = this.#settings.pendingShare ?? cap
    while (this.#pending.size + count > cap) {
      const own = this.#held.get(orgId) ?? 0
      let largest: [string | undefined, number] | undefined
      for (const pair of this.#held) {
        if (pair[0] !== orgId && (!largest || pair[1] > largest[1])) largest = pair
      }
      if (
        count > cap ||
        own + count > share ||
        largest === undefined ||
        largest[1] <= share ||
        largest[1] <= own
      ) {
        throw new ApiError('tooManyPendingDeliveries')
      }
      this.#giveWay(largest[0])
    }
  }

  /**
   * Gives up the newest pending delivery of the events of `orgId` (the last it was let take), to
   * make room for another's.
   */
  #giveWay(orgId: string | undefined): void {
    let newest: Delivery | undefined
    for (const delivery of this.#pending) {
      if (delivery.orgId === orgId && (!newest || delivery.order > newest.order)) newest = delivery
    }
    if (!newest) return
    clearTimeout(newest.timer)
    newest.record.attempts.push({
      at: new Date(this.#timeOf(newest)).toISOString(),
      error: 'given up: its organisation held the most pending deliveries when another needed room',
    })
    this.#finish(newest)
  }

  /** Adds `delivery` to the pending ones, charged to its event's organisation. */
  #hold(delivery: Delivery): void {
    this.#pending.add(delivery)
    this.#held.set(delivery.orgId, (this.#held.get(delivery.orgId) ?? 0) + 1)
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
    if (!this.#pending.delete(delivery)) return
    const held = (this.#held.get(delivery.orgId) ?? 1) - 1
    if (held === 0) this.#held.delete(delivery.orgId)
    else this.#held.set(delivery.orgId, held)
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
