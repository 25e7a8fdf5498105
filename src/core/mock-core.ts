import { ApiError, toErrorResponse, type WireResponse } from '../errors.ts'
import { type Collections, Database, type MockState, type StateChange } from '../model/database.ts'
import type { Credentials, Dataset, Seed } from '../model/dataset.ts'
import { type MockApiOptions, type ResolvedMockApiOptions, resolveOptions } from '../options.ts'
import { authenticate } from '../rules/authenticate.ts'
import { createRuleContext, type RuleContext } from '../rules/context.ts'
import { type RedeemResult, redeemSignInToken } from '../rules/sign-in-tokens.ts'
import { formatTimestamp } from '../rules/timestamps.ts'
import { sleep } from '../time.ts'
import { answerWebView } from '../web-view/answer.ts'
import type { RaisedWebhookEvent, WebhookEventInput } from '../webhooks/schemas.ts'
import { pathnameOf, type WireRequest } from '../wire.ts'
import { buildWebhookEvent } from './build-event.ts'
import { type FaultOptions, FaultQueue, type Operation, type QueuedFaultView } from './faults.ts'
import { isFetchRequest, toWireRequest } from './fetch-adapter.ts'
import { type CallOf, type CallRequest, callsIn, Journal, type JournalEntry } from './journal.ts'
import { redactCall, redactPath } from './redact-secrets.ts'
import { type ApiRoute, matchApiRoute } from './routes.ts'
import { siteRowOf } from './site.ts'
import { type WebhookControls, Webhooks } from './webhooks.ts'

/**
 * Where a mock keeps its records beyond the process: the standalone server's `--state-file`.
 * Each method runs inside the operation it serves, before that operation's answer is released.
 */
export interface StateStore {
  /**
   * The records and credentials to start from, given the seeded ones and the organisations the
   * options add (to apply on top of records kept from before).
   */
  open(seeded: Dataset, organisations: ResolvedMockApiOptions['organisations']): Dataset
  /**
   * Makes one operation's changes durable, or throws (the operation then answers 500, and the
   * changes are offered again with the next operation's). `records` gives every record.
   */
  commit(changes: readonly StateChange[], records: () => MockState): void
  /** Replaces every stored record with `state`: after a reset. */
  replace(state: MockState): void
}

/**
 * The mock without a transport: its state, its controls, and `dispatch`, which answers a
 * {@link WireRequest}. The MSW handlers and the standalone server both call `dispatch`, so they
 * share one implementation of the API.
 */
export class MockCore {
  readonly options: ResolvedMockApiOptions
  /** Resolves once the seeded data is loaded; every request and control waits for it anyway. */
  readonly ready: Promise<void>
  /**
   * The webhook endpoints and their deliveries.
   *
   * @example
   * const { secret } = api.webhooks.add({ url: 'https://receiver.test/webhooks' })
   * await api.webhooks.settled()
   */
  readonly webhooks: WebhookControls
  /**
   * Raising events, as the platform would: delivered to every endpoint that receives the type.
   *
   * @example
   * const event = await api.events.raise({ type: 'notifications.sent', orgId: 'org-1', id: 'user-1' })
   * event.id // 'msg_…': the svix-id of every attempt
   */
  readonly events: {
    /**
     * Queues the event for delivery and returns it with its message id. Rejects with a
     * `TypeError` for invalid input, and with the API's 404 `User not found` for a named event
     * whose user does not exist.
     */
    raise(input: WebhookEventInput): Promise<RaisedWebhookEvent>
  }
  readonly #webhooks: Webhooks
  readonly #dataset: Dataset
  readonly #faults = new FaultQueue()
  readonly #journal: Journal
  readonly #store: StateStore | undefined
  #credentials: Credentials[]
  #ctx: RuleContext
  #tail: Promise<unknown> = Promise.resolve()

  /**
   * `seed` builds the data to start from (the fixtures' `seedDataset` in the package);
   * `store` keeps the records beyond the process (the standalone server's `--state-file`).
   */
  constructor(seed: Seed, options: MockApiOptions = {}, store?: StateStore) {
    this.options = resolveOptions(options)
    const o = this.options
    this.#dataset = seed(o)
    this.#journal = new Journal(o.journalSize)
    this.#ctx = createRuleContext(o, new Database())
    this.#webhooks = new Webhooks({
      endpoints: o.webhooks,
      retrySchedule: o.webhookRetrySchedule,
      timeoutMs: o.webhookTimeoutMs,
      now: this.#ctx.now,
    })
    this.webhooks = this.#webhooks
    this.events = {
      raise: (input) =>
        this.#exclusive(async () => {
          const event = buildWebhookEvent(this.#ctx, input)
          this.#webhooks.publish(event)
          return event
        }),
    }
    this.#store = store
    const start = store ? store.open(this.#dataset, o.organisations) : this.#dataset
    this.#credentials = start.credentials
    this.ready = this.#exclusive(() => this.#load(start.state))
  }

  /** The organisations and API keys a client can use, keys in clear. */
  get credentials(): Credentials[] {
    return this.#credentials
  }

  /**
   * The `@msw/data` collections behind the mock, to read with their query API or seed with
   * `create`. A reset replaces them: read `db` again afterwards rather than keeping a collection.
   */
  get db(): Collections {
    return this.#ctx.db.collections
  }

  /**
   * Answers one request: a {@link WireRequest} (what the standalone server hands it) or a Fetch
   * `Request` (read as the MSW handlers read it). Never throws: every failure is an error response.
   */
  async dispatch(input: WireRequest | Request): Promise<WireResponse> {
    const started = performance.now()
    const request = isFetchRequest(input) ? await toWireRequest(input) : input
    const { response, delayMs, call, path } = await this.#exclusive(async () => {
      const answer = await this.#answer(request)
      try {
        this.#persist()
        return answer
      } catch (error) {
        return { ...answer, response: toErrorResponse(error) }
      }
    })
    const delay = delayMs + this.options.delayMs
    if (delay > 0) await sleep(delay)
    this.#journal.add({
      time: formatTimestamp(this.#ctx.now()),
      method: request.method,
      path,
      status: response.status,
      durationMs: Math.round((performance.now() - started) * 1000) / 1000,
      ...call,
    })
    return response
  }

  /**
   * Back to the seeded data, with the journal, the queued faults and the webhook deliveries
   * cleared (pending retries cancelled, endpoints added since the start removed).
   */
  async reset(): Promise<void> {
    this.#webhooks.reset()
    await this.#exclusive(async () => {
      // The store first: if it fails, the records stay as the store has them.
      this.#store?.replace(this.#dataset.state)
      await this.#load(this.#dataset.state)
      this.#credentials = this.#dataset.credentials
    })
    this.#faults.clear()
    this.#journal.clear()
  }

  /**
   * Makes the next `count` calls of `operation` that pass the credentials check answer `status`
   * (one of that operation's documented errors), optionally after `delayMs`.
   */
  failNext(operation: Operation, fault: FaultOptions): void {
    this.#faults.add({ ...fault, operation })
  }

  /**
   * The forced faults still queued, in the order they will be taken (what `GET /__mock/faults`
   * serves).
   *
   * @example
   * api.failNext('delete', { status: 500, count: 2 })
   * api.queuedFaults() // [{ operation: 'delete', status: 500, remaining: 2, delayMs: 0 }]
   */
  queuedFaults(): QueuedFaultView[] {
    return this.#faults.list()
  }

  /**
   * Runs `task` over the records between two operations, and keeps what it changed as an API call's
   * changes are kept (in the state file, if any): what the inspector's queries and its delete do.
   *
   * @example
   * const count = await core.transact((ctx) => ctx.db.users.size)
   */
  async transact<T>(task: (ctx: RuleContext) => T | Promise<T>): Promise<T> {
    return this.#exclusive(async () => {
      const result = await task(this.#ctx)
      this.#persist()
      return result
    })
  }

  /** A plain copy of every record, one array per collection. */
  async state(): Promise<MockState> {
    return this.#exclusive(async () => this.#ctx.db.snapshot())
  }

  /** The journal of requests, oldest first. */
  requests(): JournalEntry[] {
    return this.#journal.list()
  }

  /**
   * The API calls the routes matched (of `operation` if given), whatever their answer, oldest
   * first: what each asked, its status and time. Read from the journal, so bounded by it.
   *
   * @example api.calls('delete') // [{ operation: 'delete', request: { orgId, id }, status: 200, time }]
   */
  calls<O extends Operation = Operation>(operation?: O): CallOf<O>[] {
    return callsIn(this.#journal.list(), operation)
  }

  /** Redeems a sign-in token as the web view does: once, before it expires, for its organisation. */
  async redeemToken(orgId: string, token: string): Promise<RedeemResult> {
    return this.#exclusive(async () => {
      const result = redeemSignInToken(this.#ctx, orgId, token)
      this.#persist()
      return result
    })
  }

  /** Replaces the records with `state`, each validated by `@msw/data` with its schema. */
  async #load(state: MockState): Promise<void> {
    const db = new Database()
    await db.load(state)
    if (this.#store) db.trackChanges()
    this.#ctx = { ...this.#ctx, db }
  }

  /** Hands the changes of the operation just run to the store, if any. */
  #persist(): void {
    const { db } = this.#ctx
    if (!this.#store || db.pendingChanges.length === 0) return
    this.#store.commit(db.pendingChanges, () => db.records())
    db.clearChanges()
  }

  /**
   * Runs `task` after every task queued before it has finished. Identify awaits `@msw/data`'s
   * async `create`; serialising the operations keeps each one atomic (two identify calls for one
   * new id create one user) without a lock per record.
   */
  #exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#tail.then(task)
    this.#tail = run.catch(() => undefined)
    return run
  }

  async #answer(
    request: WireRequest,
  ): Promise<{ response: WireResponse; delayMs: number; call?: CallRequest; path: string }> {
    const pathname = pathnameOf(request.target)
    let delayMs = 0
    let started: RouteCall | undefined
    let response: WireResponse
    let answered = false
    try {
      if (siteRowOf(pathname).part === 'webView') {
        response = await answerWebView(this.#ctx, request, this.options.webViewMessages)
        return { response, delayMs, path: pathname }
      }
      const { route, params } = matchApiRoute(request.method, pathname)
      started = route.begin(request, params)
      const orgId = authenticate(this.#ctx, request.headers.get('authorization'))
      const fault = this.#faults.take(route.operation)
      if (fault) {
        delayMs = fault.delayMs
        throw new ApiError(fault.code)
      }
      response = await started.answer(this.#ctx, orgId)
      answered = true
    } catch (error) {
      response = toErrorResponse(error)
    }
    // The journal never holds a secret, whatever the answer: not in the request, not in the path.
    if (!started) return { response, delayMs, path: redactPath(this.#ctx, pathname) }
    const call = redactCall(this.#ctx, started.call, answered)
    const path = call === started.call ? pathname : redactPath(this.#ctx, pathname)
    return { response: started.withHeaders(response), delayMs, call, path }
  }
}

/** A call of any API route under way. */
type RouteCall = ReturnType<ApiRoute['begin']>
