import { z } from 'zod'
import { type OrganisationInput, organisationInputSchema, type PutUser } from '../api/data-file.ts'
import { ApiError, InvalidInput, toErrorResponse, type WireResponse } from '../base/errors.ts'
import { RingBuffer } from '../base/ring-buffer.ts'
import { hashSecret } from '../base/secrets.ts'
import { sleep } from '../base/time.ts'
import { pathnameOf, type WireRequest } from '../base/wire.ts'
import {
  type Collections,
  Database,
  type MockState,
  type PendingChanges,
} from '../model/database.ts'
import type { Credentials, Dataset, Seed } from '../model/dataset.ts'
import { organisationSlice } from '../model/declared-data.ts'
import { orgKey } from '../model/indexes.ts'
import {
  type MockApiOptions,
  type ResolvedMockApiOptions,
  resolveOptions,
} from '../options/mock-api-options.ts'
import { authenticate } from '../rules/authenticate.ts'
import { createRuleContext, type RuleContext } from '../rules/context.ts'
import {
  generateApiKey,
  generateOrganisationId,
  parseInput,
  putUser,
  startOfOrganisation,
} from '../rules/organisations.ts'
import { type RedeemResult, redeemSignInToken } from '../rules/sign-in-tokens.ts'
import { formatTimestamp } from '../rules/timestamps.ts'
import { answerWebView } from '../web-view/answer.ts'
import { type WebhookControls, Webhooks, type WebhookTransport } from '../webhooks/delivery.ts'
import { buildWebhookEvent, type WebhookEventInput } from '../webhooks/events.ts'
import type { RaisedWebhookEvent } from '../webhooks/webhook-schemas.ts'
import { type FaultOptions, FaultQueue, type Operation, type QueuedFaultView } from './faults.ts'
import { isFetchRequest, toWireRequest } from './fetch-adapter.ts'
import {
  type CallOf,
  type CallRequest,
  type CallScope,
  callsIn,
  type JournalEntry,
  targetOf,
} from './journal.ts'
import { redactCall, redactPath } from './redact-secrets.ts'
import { type ApiRoute, matchApiRoute } from './routes.ts'
import { siteRowOf } from './site.ts'
import { inProcessTenant, type Tenant } from './tenant.ts'

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
   * Makes one operation's changes durable, all or none, or throws: the operation then answers
   * 500 and its changes are taken back in memory too.
   */
  commit(writes: PendingChanges['writes']): void
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
  /**
   * Organisations created and removed at run time (a tenant per test worker), and users put in
   * exact states.
   *
   * @example
   * const { orgId, apiKey } = await api.organisations.create({ users: [{ id: 'ada', registrationStatus: 'archived' }] })
   * await api.organisations.remove(orgId)
   */
  readonly organisations: OrganisationControls
  readonly #webhooks: Webhooks
  readonly #seed: Seed
  readonly #dataset: Dataset
  readonly #faults = new FaultQueue()
  /** The journal, each entry with the organisation its call names (none when it names none). */
  readonly #journal: RingBuffer<ScopedEntry>
  readonly #store: StateStore | undefined
  #credentials: Credentials[]
  #ctx: RuleContext
  #tail: Promise<unknown> = Promise.resolve()

  /**
   * `seed` builds the data to start from (the fixtures' `seedDataset` in the package);
   * `store` keeps the records beyond the process (the standalone server's `--state-file`);
   * `transport` sends webhook attempts (the global `fetch` unless given).
   */
  constructor(
    seed: Seed,
    options: MockApiOptions = {},
    store?: StateStore,
    transport?: WebhookTransport,
  ) {
    this.options = resolveOptions(options)
    const o = this.options
    this.#seed = seed
    this.#dataset = seed(o)
    if (this.#dataset.state.organisations.length > o.maxOrganisations) {
      throw new InvalidInput(
        `Invalid options: ${this.#dataset.state.organisations.length} organisations, more than maxOrganisations (${o.maxOrganisations})`,
      )
    }
    this.#journal = new RingBuffer<ScopedEntry>(o.journalSize)
    this.#ctx = createRuleContext(o, new Database())
    this.#webhooks = new Webhooks({
      endpoints: o.webhooks,
      retrySchedule: o.webhookRetrySchedule,
      timeoutMs: o.webhookTimeoutMs,
      now: this.#ctx.now,
      transport,
    })
    this.webhooks = this.#webhooks
    this.events = {
      raise: (input) =>
        this.#exclusive(async () => {
          const { db, now } = this.#ctx
          const event = buildWebhookEvent(
            {
              now,
              user: (orgId, id) => db.users.get(orgKey(orgId, id)),
              learningPathOf: (userId) => db.learningProgress.get(userId)?.learningPathId,
            },
            input,
          )
          this.#webhooks.publish(event, 'orgId' in input ? input.orgId : undefined)
          return event
        }),
    }
    this.organisations = {
      create: async (input) => inProcessTenant(this, await this.#createOrganisation(input)),
      remove: (orgId) => this.#removeOrganisation(orgId),
      putUser: (orgId, id, user) => this.#putUser(orgId, id, user),
    }
    this.#store = store
    const start = store ? store.open(this.#dataset, o.organisations) : this.#dataset
    this.#credentials = start.credentials
    // Bound, not a closure: a closure would share the constructor's scope with `events.raise`,
    // which would keep the records loaded at start alive for the life of the mock.
    this.ready = this.#exclusive(this.#load.bind(this, start.state, start.credentials))
  }

  /** The JSON size of every record kept, in characters: what `maxStateBytes` bounds. */
  get stateBytes(): number {
    return this.#ctx.db.bytes
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
    const { response, delayMs, call, path, orgId } = await this.#exclusive(async () => {
      const answer = await this.#answer(request)
      try {
        await this.#settle()
        return answer
      } catch (error) {
        return { ...answer, response: toErrorResponse(error) }
      }
    })
    const delay = delayMs + this.options.delayMs
    if (delay > 0) await sleep(delay)
    this.#journal.add({
      entry: {
        time: formatTimestamp(this.#ctx.now()),
        method: request.method,
        path,
        status: response.status,
        durationMs: Math.round((performance.now() - started) * 1000) / 1000,
        ...call,
      },
      orgId,
    })
    return response
  }

  /**
   * The answer to an API request whose credentials are refused, given before its body is read (a
   * 401 never costs the server a body); `undefined` when the request needs its body to be answered.
   */
  async answerUnread(request: WireRequest): Promise<WireResponse | undefined> {
    const pathname = pathnameOf(request.target)
    if (siteRowOf(pathname).part !== 'api') return undefined
    try {
      matchApiRoute(request.method, pathname)
      authenticate(this.#ctx, request.headers.get('authorization'))
      return undefined
    } catch {
      return this.dispatch({ ...request, body: null })
    }
  }

  /**
   * Back to the seeded data, with the journal, the queued faults and the webhook deliveries
   * cleared (pending retries cancelled, endpoints added since the start removed, organisations
   * created at run time removed). With an `orgId`, only that organisation goes back to where it
   * started (the seed and the data file, or what it was created with) and only its journal
   * entries, faults and deliveries are cleared; 404 `Not found` for one the mock does not have.
   *
   * @example await api.reset({ orgId })
   */
  async reset(scope: { orgId?: string } = {}): Promise<void> {
    const { orgId } = parseInput(resetScopeSchema, scope)
    if (orgId !== undefined) return this.#resetOrganisation(orgId)
    this.#webhooks.reset()
    await this.#exclusive(async () => {
      // The store first: if it fails, the records stay as the store has them.
      this.#store?.replace(this.#dataset.state)
      await this.#load(this.#dataset.state, this.#dataset.credentials)
      this.#credentials = this.#dataset.credentials
    })
    this.#faults.clear()
    this.#journal.clear()
  }

  /**
   * Makes the next `count` calls of `operation` that pass the credentials check answer `status`
   * (one of that operation's documented errors), optionally after `delayMs`. With `orgId` (and
   * `id`), only calls for that organisation (and user) take it; 404 `Not found` for an
   * organisation the mock does not have.
   */
  failNext(operation: Operation, fault: FaultOptions): void {
    this.#faults.add({ ...fault, operation }, (orgId) => this.#hasOrganisation(orgId))
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
      let result: T
      try {
        result = await task(this.#ctx)
      } catch (error) {
        // A task that fails changes nothing, like a refused call.
        await this.#ctx.db.undo()
        throw error
      }
      await this.#settle()
      return result
    })
  }

  /** A plain copy of every record, one array per collection. */
  async state(): Promise<MockState> {
    return this.#exclusive(async () => this.#ctx.db.snapshot())
  }

  /**
   * Every record as the JSON of {@link state}, in pieces of about 64 KiB, never as one string:
   * what `GET /__mock/state` writes as it reads. The records are those of the moment it is
   * called; other operations run between the pieces, and a record one of them changes in place
   * may show that change.
   */
  async stateJson(): Promise<AsyncIterable<string>> {
    const records = await this.#exclusive(async () => this.#ctx.db.records())
    return piecesOf(records)
  }

  /** The journal of requests, oldest first; with an `orgId`, only the calls naming it. */
  requests(scope: CallScope = {}): JournalEntry[] {
    const { orgId } = scope
    const entries = this.#journal.list()
    const kept = orgId === undefined ? entries : entries.filter((e) => e.orgId === orgId)
    return kept.map(({ entry }) => entry)
  }

  /**
   * The API calls the routes matched (of `operation` if given), whatever their answer, oldest
   * first: what each asked, its status and time. Read from the journal, so bounded by it.
   *
   * With an `orgId`, only the calls that name that organisation.
   *
   * @example api.calls('delete') // [{ operation: 'delete', request: { orgId, id }, status: 200, time }]
   */
  calls<O extends Operation = Operation>(operation?: O, scope: CallScope = {}): CallOf<O>[] {
    return callsIn(this.requests(scope), operation)
  }

  /** Redeems a sign-in token as the web view does: once, before it expires, for its organisation. */
  async redeemToken(orgId: string, token: string): Promise<RedeemResult> {
    return this.#exclusive(async () => {
      const result = redeemSignInToken(this.#ctx, orgId, token)
      await this.#settle()
      return result
    })
  }

  #hasOrganisation(orgId: string): boolean {
    return this.#ctx.db.organisations.get(orgId) !== undefined
  }

  async #createOrganisation(input: OrganisationInput = {}): Promise<CreatedOrganisation> {
    const parsed = parseInput(organisationInputSchema, input)
    const created = await this.transact(async () => {
      const { db } = this.#ctx
      const orgId = parsed.orgId ?? generateOrganisationId()
      if (this.#hasOrganisation(orgId)) throw new ApiError('conflict')
      const max = this.options.maxOrganisations
      if (db.organisations.size >= max) {
        throw new InvalidInput(
          `Invalid request parameters: the mock holds ${max} organisations, its limit (maxOrganisations, --max-orgs)`,
        )
      }
      const apiKey = generateApiKey()
      const fixtures = (users: number) =>
        this.#seed({
          ...this.options,
          seededOrganisations: 0,
          organisations: [{ orgId, apiKeys: [apiKey], users }],
          data: undefined,
        }).state
      const start = startOfOrganisation(this.#ctx, orgId, parsed, apiKey, fixtures)
      if (db.collections.users.count() + start.users.length > this.options.maxUsers) {
        throw new InvalidInput(
          `Invalid request parameters: the mock would hold more than ${this.options.maxUsers} users, its limit (maxUsers, --max-users)`,
        )
      }
      await db.add(start)
      await db.collections.organisationStarts.create({ orgId, records: JSON.stringify(start) })
      return { orgId, apiKey, name: start.organisations[0]?.name ?? orgId }
    })
    const { orgId, apiKey, name } = created
    this.#credentials = [...this.#credentials, { orgId, name, apiKeys: [apiKey] }]
    return { orgId, apiKey }
  }

  async #removeOrganisation(orgId: string): Promise<void> {
    await this.transact(async () => {
      if (!this.#hasOrganisation(orgId)) throw new ApiError('notFound')
      this.#ctx.db.removeOrganisation(orgId)
    })
    this.#credentials = this.#credentials.filter((c) => c.orgId !== orgId)
    this.#forgetCallsOf(orgId)
  }

  async #resetOrganisation(orgId: string): Promise<void> {
    await this.transact(async () => {
      const { db } = this.#ctx
      if (!this.#hasOrganisation(orgId)) throw new ApiError('notFound')
      const created = db.organisationStarts.get(orgId)
      const start: MockState = created
        ? JSON.parse(created.records)
        : organisationSlice(this.#dataset.state, orgId)
      const startRecord = created && { orgId, records: created.records }
      db.removeOrganisation(orgId)
      await db.add(start)
      if (startRecord) await db.collections.organisationStarts.create(startRecord)
    })
    this.#forgetCallsOf(orgId)
  }

  /** Clears the journal entries, queued faults and webhook deliveries of organisation `orgId`. */
  #forgetCallsOf(orgId: string): void {
    this.#faults.clearOrganisation(orgId)
    this.#journal.removeWhere((entry) => entry.orgId === orgId)
    this.#webhooks.forgetOrganisation(orgId)
  }

  async #putUser(orgId: string, id: string, user: PutUser): Promise<PutUserResult> {
    return this.transact(async () => ({ created: await putUser(this.#ctx, orgId, id, user) }))
  }

  /**
   * Replaces the records with `state`, each validated by `@msw/data` with its schema. The keys of
   * `credentials` are held in clear: the journal's redaction learns them.
   */
  async #load(state: MockState, credentials: readonly Credentials[]): Promise<void> {
    const db = new Database()
    await db.load(state)
    for (const key of credentials.flatMap((c) => c.apiKeys)) {
      db.secretFingerprints.add(key, hashSecret(key))
    }
    this.#ctx = { ...this.#ctx, db }
  }

  /**
   * Keeps the changes of the operation just run, written to the store if any; or, when they would
   * pass `maxStateBytes` or the store cannot write them, takes them back and throws (a 500).
   */
  async #settle(): Promise<void> {
    const { db } = this.#ctx
    const pending = db.pending()
    if (pending.writes.length === 0) return
    try {
      const limit = this.options.maxStateBytes
      if (pending.bytes > limit && pending.bytes > db.bytes) {
        this.#ctx.warn(
          `a call was refused: it would take the state to ${pending.bytes} characters of JSON, past its limit of ${limit} (raise it with maxStateBytes or --max-state-bytes)`,
        )
        throw new ApiError('internal')
      }
      this.#store?.commit(pending.writes)
    } catch (error) {
      await db.undo()
      throw error
    }
    db.accept(pending)
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

  async #answer(request: WireRequest): Promise<{
    response: WireResponse
    delayMs: number
    call?: CallRequest
    path: string
    orgId?: string | undefined
  }> {
    const pathname = pathnameOf(request.target)
    let delayMs = 0
    let started: RouteCall | undefined
    let response: WireResponse
    let answered = false
    try {
      if (siteRowOf(pathname).part === 'webView') {
        response = await answerWebView(this.#ctx, request, this.options.webViewMessages)
        // The organisation a web view names is kept only when it is one: never a secret.
        const named = new URL(request.target, 'http://webview.invalid').searchParams.get('orgId')
        const orgId = named !== null && this.#hasOrganisation(named) ? named : undefined
        return { response, delayMs, path: pathname, orgId }
      }
      const { route, params } = matchApiRoute(request.method, pathname)
      started = route.begin(request, params)
      const orgId = authenticate(this.#ctx, request.headers.get('authorization'))
      const fault = this.#faults.take(route.operation, targetOf(started.call as CallRequest))
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
    const { orgId } = targetOf(call)
    return { response: started.withHeaders(response), delayMs, call, path, orgId }
  }
}

/** The JSON of `state`, in pieces of about 64 KiB; the event loop turns between them. */
async function* piecesOf(state: MockState): AsyncGenerator<string> {
  let piece = ''
  for (const [index, [name, records]] of Object.entries(state).entries()) {
    piece += `${index === 0 ? '{' : ','}${JSON.stringify(name)}:[`
    for (const [i, record] of (records as object[]).entries()) {
      piece += (i === 0 ? '' : ',') + JSON.stringify(record)
      if (piece.length >= 65_536) {
        yield piece
        piece = ''
        await new Promise((resolve) => setTimeout(resolve, 0))
      }
    }
    piece += ']'
  }
  yield `${piece}}`
}

/** A call of any API route under way. */
type RouteCall = ReturnType<ApiRoute['begin']>

/** A journal entry with the organisation its call names. */
interface ScopedEntry {
  entry: JournalEntry
  orgId: string | undefined
}

const resetScopeSchema = z.strictObject({ orgId: z.string().min(1).max(1024).optional() })

/** An organisation created at run time: its id, and its API key in clear. */
export interface CreatedOrganisation {
  orgId: string
  apiKey: string
}

/** A user put in an exact state: whether it was created (or replaced). */
export interface PutUserResult {
  created: boolean
}

/** The controls of {@link MockCore.organisations}. */
export interface OrganisationControls {
  /**
   * Creates an organisation with a fresh API key (and, as `input` says, an id, a name, groups,
   * paths and users); resolves to its {@link Tenant} handle (its id, key and base URL, and its
   * scoped controls). Rejects with the API's 409 `Conflict` for an `orgId` the mock has, and a
   * `TypeError` for invalid input or past `maxOrganisations`.
   */
  create(input?: OrganisationInput): Promise<Tenant>
  /**
   * Removes an organisation and everything of it: keys, groups, paths, users, journal entries,
   * faults and deliveries. Rejects with 404 `Not found` for one the mock does not have.
   */
  remove(orgId: string): Promise<void>
  /**
   * Creates or replaces user `id` of `orgId` in the exact state `user` declares (a data-file user
   * without `orgId` and `id`). Rejects with 404 `Not found` for an unknown organisation, and a
   * `TypeError` for invalid input.
   */
  putUser(orgId: string, id: string, user: PutUser): Promise<PutUserResult>
}
