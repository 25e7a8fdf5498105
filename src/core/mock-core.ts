import * as z from 'zod'
import { type ShapeCase, shapeCases } from '../api/shape-cases.ts'
import { ApiError, InvalidInput, toErrorResponse, type WireResponse } from '../base/errors.ts'
import { jsonArrayPieces } from '../base/json-pieces.ts'
import { createSecretSeal } from '../base/secret-seal.ts'
import { randomText } from '../base/secrets.ts'
import { systemClock } from '../base/time.ts'
import { type IncomingRequest, incomingOf, type WireRequest } from '../base/wire.ts'
import { type Collections, Database, isGenerated, type MockState } from '../model/database.ts'
import type { Credentials, Dataset, Seed } from '../model/dataset.ts'
import { startClocks } from '../model/declared-data.ts'
import {
  type MockApiOptions,
  type ResolvedMockApiOptions,
  resolveOptions,
} from '../options/mock-api-options.ts'
import { createRuleContext, type RuleContext } from '../rules/context.ts'
import { parseInput } from '../rules/organisations.ts'
import { type RedeemResult, redeemSignInToken } from '../rules/sign-in-tokens.ts'
import { type WebhookControls, Webhooks, type WebhookTransport } from '../webhooks/delivery.ts'
import { buildWebhookEvent, type WebhookEventInput } from '../webhooks/events.ts'
import { webhookLimits } from '../webhooks/limits.ts'
import type { RaisedWebhookEvent } from '../webhooks/webhook-schemas.ts'
import { type AnswerDeps, answerRequest } from './answer-request.ts'
import { CallJournal } from './call-journal.ts'
import { Chaos } from './chaos.ts'
import { ClockControls } from './clock-controls.ts'
import { Coverage, type CoverageReport, deliveryItemId, eventItemId } from './coverage.ts'
import { type FailureCase, failureCases } from './failure-cases.ts'
import {
  type CaseFault,
  type FailNextArgs,
  type Fault,
  FaultQueue,
  faultOf,
  type QueuedFaultView,
} from './faults.ts'
import { fromFetchRequest, isFetchRequest } from './fetch-adapter.ts'
import { type CallOf, type CallScope, callsIn, type JournalEntry } from './journal.ts'
import { LatencyDraws } from './latency-draws.ts'
import { OrganisationLives } from './organisation-lives.ts'
import type { Operation } from './routes.ts'
import { type SiteRow, siteRowOf } from './site.ts'
import { statePieces } from './state-pieces.ts'
import { type OrganisationCore, TenantControls } from './tenant-controls.ts'
import { type StateStore, Transactions } from './transactions.ts'

export type { CreatedOrganisation, PutUserResult } from './tenant-controls.ts'
export type { StateStore } from './transactions.ts'

/**
 * The data a mock starts from, and the dataset a reset goes back to when it must be kept. A
 * generated dataset (the seed's alone) is built again, the same, from the options: the start
 * stores its records themselves, and a reset builds it again when it first needs it. Any other
 * (with a data file's records) is kept, and the start stores copies. With a state file, the seed's
 * organisations and keys come first, without users (they do not depend on them, see `Seed`): a
 * file that holds records is the start, so a generated seed's users are drawn only if the file is
 * new, the command line adds an organisation to it, or a reset needs them.
 */
function startOf(
  seed: Seed,
  o: ResolvedMockApiOptions,
  store: StateStore | undefined,
): { start: Dataset; kept: Dataset | undefined } {
  const first = seed(store ? { ...o, usersPerOrganisation: 0 } : o)
  const { organisations } = first.state
  if (organisations.length > o.maxOrganisations) {
    throw new InvalidInput(
      `Invalid options: ${organisations.length} organisations, more than maxOrganisations (${o.maxOrganisations})`,
    )
  }
  if (!store) return { start: first, kept: isGenerated(first.state) ? undefined : first }
  const kept = isGenerated(first.state) ? undefined : seed(o)
  const seeded = kept ? () => kept : () => seed(o)
  // A new file keeps the seed with its clocks started, as a load of it starts them.
  const started = () => {
    const { state, credentials } = seeded()
    return { state: startClocks(state, (o.now ?? systemClock)()), credentials }
  }
  return { start: store.open(started, first.credentials, o.organisations), kept }
}

/**
 * The mock without a transport: its state, its controls, and `dispatch`, which answers a
 * {@link WireRequest}. The MSW handlers and the standalone server both call `dispatch`, so they
 * share one implementation of the API.
 */
export class MockCore {
  readonly options: ResolvedMockApiOptions
  /**
   * This mock's own id, drawn at random when it is made (16 characters of `0-9a-z`): the health
   * answer says it, so a probe tells this mock from one started before or beside it.
   */
  readonly instanceId = randomText('0123456789abcdefghijklmnopqrstuvwxyz', 16)
  /**
   * Resolves once the seeded data is loaded and every record is in its `@msw/data` collection
   * (`db`'s hooks see no record arrive after it); every request and control waits for
   * {@link serving} anyway.
   */
  readonly ready: Promise<void>
  /**
   * Resolves once the seeded data is validated and indexed: every request can be answered (the
   * standalone server listens then), while a large load's records are still being adopted into
   * `@msw/data` in the background. Readers see the same records, the same objects, either way.
   */
  readonly serving: Promise<void>
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
  readonly organisations: OrganisationCore
  /**
   * The answer shapes: `cases()` lists the covering set, each case with its name and the form of
   * each dimension, in a fixed order (a new copy each call).
   *
   * @example
   * it.each(api.shapes.cases())('handles $name', async ({ name }) => {
   *   await api.organisations.setShapes(orgId, name)
   * })
   */
  readonly shapes: { cases(): ShapeCase[] } = { cases: () => structuredClone([...shapeCases]) }
  /**
   * The failures beyond the error table: `cases()` lists every failure case (each operation, kind,
   * status and `applied` the kinds table allows), by name, in a fixed order (a new copy each call).
   *
   * @example
   * describe.each(api.failures.cases().filter((c) => c.operation === 'delete'))('$name', ({ name }) => {
   *   it('deletes the user once', async () => { await tenant.failNext(name) })
   * })
   */
  readonly failures: { cases(): FailureCase[] } = {
    cases: () => failureCases.map((c) => ({ ...c })),
  }
  /**
   * The clocks a test controls: the mock's (no `orgId`), and each organisation's own.
   *
   * @example
   * await core.clocks.set('org-1', { frozenAt: '2030-01-01T00:00:00Z' })
   * await core.clocks.advance('org-1', 301_000)
   */
  readonly clocks: ClockControls
  /**
   * Chaos at a rate: the mock's (no `orgId`) and each organisation's own, which replaces the
   * mock's for its calls; `read` gives `null` for a scope without one under way.
   *
   * @example
   * core.chaos.set('org-1', { rate: 0.05, seed: 7 }) // { rate: 0.05, cases: [...], seed: 7, drawn: 0, failed: 0 }
   * core.chaos.end('org-1')
   */
  readonly chaos: Chaos
  readonly #webhooks: Webhooks
  readonly #seed: Seed
  /** The data a reset goes back to, once built (see the constructor). */
  #startData: Dataset | undefined
  readonly #faults: FaultQueue
  /** What the answers given met of the answer space, over the whole run. */
  readonly #coverage = new Coverage((orgId) => this.#tenants.has(orgId))
  /** The delays the latencies give, drawn from the seed. */
  readonly #latency: LatencyDraws
  /** Each organisation's life: what a call counts goes to the life it began in. */
  readonly #lives = new OrganisationLives((orgId) => this.#tenants.has(orgId))
  /** The journal, each organisation's calls (and those of none) bounded apart. */
  readonly #journal: CallJournal
  readonly #transactions: Transactions
  readonly #tenants: TenantControls
  readonly #answerDeps: AnswerDeps
  #loaded = false

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
    this.#faults = new FaultQueue(o.sourceShare)
    this.#latency = new LatencyDraws(o.seed)
    const { start, kept } = startOf(seed, o, store)
    this.#seed = seed
    this.#startData = kept
    const transactions = new Transactions(
      createRuleContext(o, new Database()),
      o.maxStateBytes,
      store,
    )
    this.#transactions = transactions
    // Read at each use: a reset replaces the records, and the clocks with them.
    const clocks = () => transactions.ctx.db.clocks
    const realMs = () => transactions.ctx.real().getTime()
    this.#webhooks = new Webhooks({
      ended: (outcome, type, orgId) => {
        this.#coverage.count(orgId, deliveryItemId(outcome))
        if (outcome !== 'given-up') this.#coverage.count(orgId, eventItemId(type))
      },
      endpoints: o.webhooks,
      retrySchedule: o.webhookRetrySchedule,
      timeoutMs: o.webhookTimeoutMs,
      real: () => transactions.ctx.real(),
      clocks: {
        timeOf: (orgId) => clocks().timeOf(orgId, realMs()),
        standsStill: (orgId) => clocks().modeOf(orgId) === 'frozen',
      },
      transport,
      has: (orgId) => this.#tenants.has(orgId),
      // The events of one organisation (or of none) hold the sources' share of the pool.
      pendingShare: Math.max(1, Math.floor(o.sourceShare * webhookLimits.pendingDeliveries)),
    })
    this.webhooks = this.#webhooks
    this.events = {
      raise: (input) =>
        transactions.exclusive(async () => {
          const ctx = transactions.ctx
          const orgId = 'orgId' in input ? input.orgId : undefined
          const event = buildWebhookEvent(
            {
              // The event happens on its organisation's clock.
              now: () => ctx.now(orgId),
              user: (orgId, id) => ctx.db.users.get(orgId, id),
              learningPathOf: (userId) => ctx.db.learningProgress.get(userId)?.learningPathId,
            },
            input,
          )
          this.#webhooks.publish(event, orgId)
          return event
        }),
    }
    this.#journal = new CallJournal({ entries: o.journalSize, bytes: o.maxJournalBytes }, (orgId) =>
      this.#tenants.has(orgId),
    )
    this.chaos = new Chaos({ has: (orgId) => this.#tenants.has(orgId), realMs }, o.chaos)
    this.#tenants = new TenantControls({
      transactions,
      options: o,
      seed,
      dataset: () => this.#dataset(),
      credentials: start.credentials,
      settings: {
        faults: this.#faults,
        chaos: this.chaos,
        webhooks: this.#webhooks,
        seal: createSecretSeal(),
      },
      forgetCallsOf: (orgId) => this.#forgetCallsOf(orgId),
      forgetOrganisation: (orgId) => {
        this.#forgetCallsOf(orgId)
        this.#webhooks.removeOrganisation(orgId)
        this.#coverage.forget(orgId)
        this.#lives.end(orgId)
      },
    })
    this.organisations = this.#tenants
    this.clocks = new ClockControls({
      transactions,
      webhooks: this.#webhooks,
      has: (orgId) => this.#tenants.has(orgId),
    })
    this.#answerDeps = {
      transactions,
      coverage: this.#coverage,
      faults: this.#faults,
      journal: this.#journal,
      options: o,
      latency: this.#latency,
      chaos: this.chaos,
      hasOrganisation: (orgId) => this.#tenants.has(orgId),
      lives: this.#lives,
    }
    // Bound, not a closure: a closure would share the constructor's scope with `events.raise`,
    // which would keep the records loaded at start alive for the life of the mock.
    this.serving = transactions.exclusive(
      transactions.load.bind(
        transactions,
        startClocks(start.state, transactions.ctx.real()),
        start.credentials,
        { owns: kept === undefined },
      ),
    )
    this.ready = this.serving.then(() => transactions.ctx.db.adopted)
    // Its failure is `serving`'s, which every request meets: a server that never awaits it
    // must not end on an unhandled rejection.
    this.ready.catch(() => undefined)
    this.serving.then(
      () => {
        this.#loaded = true
      },
      () => undefined,
    )
  }

  /** The JSON size of every record kept, in characters: what `maxStateBytes` bounds. */
  get stateBytes(): number {
    return this.#transactions.ctx.db.bytes
  }

  /** The data a reset goes back to: the start's, or the same built again (see the constructor). */
  #dataset(): Dataset {
    this.#startData ??= this.#seed(this.options)
    return this.#startData
  }

  /** The organisations and API keys a client can use, keys in clear. */
  get credentials(): Credentials[] {
    return this.#tenants.credentials
  }

  /**
   * The `@msw/data` collections behind the mock, to read with their query API or seed with
   * `create`. A reset replaces them: read `db` again afterwards rather than keeping a collection.
   */
  get db(): Collections {
    return this.#transactions.ctx.db.collections
  }

  /**
   * Answers one request: a {@link WireRequest} (its body already read) or a Fetch `Request` (read
   * as the MSW handlers read it), through {@link answer}. Never throws: every failure is an error
   * response.
   */
  async dispatch(input: WireRequest | Request): Promise<WireResponse> {
    const request = isFetchRequest(input) ? fromFetchRequest(input) : incomingOf(input)
    // Only a Fetch body whose stream failed is gone; its caller has stopped listening.
    return (await this.answer(request)) ?? toErrorResponse(new ApiError('badRequest'))
  }

  /**
   * The one path every way in takes (the MSW handlers, `api.fetch` and the standalone server):
   * the web view, or the route and the credentials first, then the body, read only for a call
   * that may have one (see `answerRequest`). `row` is the part of the site `request` is for, when
   * the transport has read it already. `undefined` when the client went away before its body was
   * read: nothing is answered. Never rejects: every failure is an error response.
   *
   * @example
   * const response = await core.answer({ method: 'GET', target: '/api/v1/nowhere', pathname: '/api/v1/nowhere', headers, bodyAtHand: true, readBody: async () => ({ body: null }) })
   */
  answer(
    request: IncomingRequest,
    row: SiteRow = siteRowOf(request.pathname),
  ): Promise<WireResponse | undefined> {
    if (this.#loaded) return answerRequest(this.#answerDeps, request, row)
    // The credentials are checked once the seeded data is loaded (or failed to load).
    const answer = () => answerRequest(this.#answerDeps, request, row)
    return this.serving.then(answer, answer)
  }

  /**
   * Back to the seeded data, with the journal, the queued faults and the webhook deliveries
   * cleared (pending retries cancelled, endpoints added since the start removed, organisations
   * created at run time removed), every chaos ended (the option's starts again from its seed).
   * With an `orgId`, only that organisation goes back to where it started (the seed and the data
   * file, or what it was created with) and only its journal entries, faults, chaos and deliveries
   * are cleared; 404 `Not found` for one the mock does not have.
   *
   * @example await api.reset({ orgId })
   */
  async reset(scope: { orgId?: string } = {}): Promise<void> {
    const { orgId } = parseInput(resetScopeSchema, scope)
    if (orgId !== undefined) return this.#tenants.reset(orgId)
    this.#webhooks.reset()
    const transactions = this.#transactions
    await transactions.exclusive(async () => {
      // The store first: if it fails, the records stay as the store has them.
      const { state: declared, credentials } = this.#dataset()
      const state = startClocks(declared, transactions.ctx.real())
      transactions.store?.replace(state)
      const replaced = transactions.ctx.db
      await transactions.load(state, credentials)
      replaced.stopAdoption()
      this.#tenants.credentials = credentials
      // In the queue: a call still under way, delayed or not, journals nothing once it ends.
      this.#faults.clear()
      this.#journal.clear()
      this.#latency.clear()
      this.chaos.restart()
      // The organisations created at run time are gone with their lives.
      this.#lives.endGone()
    })
    // Like `ready`: once it resolves, `db` holds every record in `@msw/data`.
    await transactions.ctx.db.adopted
  }

  /**
   * Makes the next `count` calls of its operation that pass the credentials check meet `fault`:
   * one of the operation's documented errors (`status`), optionally after `delayMs`, or a failure
   * of another `kind` (see `failureKinds`), `applied` or not; or a failure case, by its name. With
   * `orgId` (and `id`), only calls that organisation owns (for that user id) take it; 404
   * `Not found` for an organisation the mock does not have.
   *
   * @example core.failNext('delete', { kind: 'reset', applied: true })
   * @example core.failNext('delete-reset-applied', { orgId: 'acme' })
   */
  failNext(...args: FailNextArgs): void {
    this.queueFault(faultOf(...args))
  }

  /** Queues `fault` as `POST /__mock/faults` takes it: what {@link failNext} does. */
  queueFault(fault: Fault | CaseFault): void {
    this.#faults.add(fault, (orgId) => this.#tenants.has(orgId))
  }

  /**
   * The forced faults still queued, in the order they will be taken (what `GET /__mock/faults`
   * serves); with an `orgId`, only those scoped to that organisation.
   *
   * @example
   * api.failNext('delete', { status: 500, count: 2 })
   * api.queuedFaults() // [{ operation: 'delete', status: 500, remaining: 2, delayMs: 0 }]
   */
  queuedFaults(scope: CallScope = {}): QueuedFaultView[] {
    const { orgId } = scope
    const queued = this.#faults.list()
    return orgId === undefined ? queued : queued.filter((fault) => fault.orgId === orgId)
  }

  /**
   * The JSON of {@link queuedFaults}, in pieces of about 64 KiB, never as one string: what
   * `GET /__mock/faults` writes as it reads (the queue may hold 16 MiB). The faults as they are
   * queued when it is called (a view of each is cheap: its JSON is what costs).
   */
  queuedFaultsJson(scope: CallScope = {}): AsyncIterable<string> {
    return jsonArrayPieces(this.queuedFaults(scope), (fault) => JSON.stringify(fault))
  }

  /**
   * Drops the forced faults still queued; with an `orgId`, only those scoped to that organisation
   * (404 `Not found` for one the mock does not have).
   *
   * @example api.clearFaults({ orgId })
   */
  clearFaults(scope: CallScope = {}): void {
    const { orgId } = scope
    if (orgId === undefined) this.#faults.clear()
    else if (this.#tenants.has(orgId)) this.#faults.clearOrganisation(orgId)
    else throw new ApiError('notFound')
  }

  /**
   * Runs `task` over the records between two operations, and keeps what it changed as an API call's
   * changes are kept (in the state file, if any): what the inspector's queries and its delete do.
   *
   * @example
   * const count = await core.transact((ctx) => ctx.db.users.size)
   */
  async transact<T>(task: (ctx: RuleContext) => T | Promise<T>): Promise<T> {
    return this.#transactions.transact(task)
  }

  /** A plain copy of every record, one array per collection. */
  async state(): Promise<MockState> {
    return this.#transactions.exclusive(async () => this.#transactions.ctx.db.snapshot())
  }

  /**
   * Every record as the JSON of {@link state}, in pieces of about 64 KiB, never as one string:
   * what `GET /__mock/state` writes as it reads. The records are those of the moment it is
   * called; other operations run between the pieces, and a record one of them changes in place
   * may show that change.
   */
  async stateJson(): Promise<AsyncIterable<string>> {
    const records = await this.#transactions.exclusive(async () =>
      this.#transactions.ctx.db.records(),
    )
    return statePieces(records)
  }

  /**
   * The journal of requests, oldest first; with an `orgId`, only the calls that organisation owns
   * (see {@link CallScope}).
   */
  requests(scope: CallScope = {}): JournalEntry[] {
    return this.#journal.list(scope.orgId)
  }

  /**
   * The JSON of {@link requests}, its newest `limit` entries (all without one), in pieces of about
   * 64 KiB, never as one string, each request written as the journal keeps it (never parsed):
   * what `GET /__mock/requests` writes as it reads.
   */
  requestsJson(scope: CallScope = {}, limit?: number): AsyncIterable<string> {
    return this.#journal.json(scope.orgId, limit)
  }

  /**
   * The API calls the routes matched (of `operation` if given), whatever their answer, oldest
   * first: what each asked, its status and time. Read from the journal, so bounded by it.
   *
   * With an `orgId`, only the calls that organisation owns.
   *
   * @example api.calls('delete') // [{ operation: 'delete', request: { orgId, id }, status: 200, time }]
   */
  calls<O extends Operation = Operation>(operation?: O, scope: CallScope = {}): CallOf<O>[] {
    return callsIn(this.requests(scope), operation)
  }

  /**
   * What the answers the mock gave met of the answer space (see `coverageItems`): of the whole
   * mock, or of the calls organisation `orgId` owns; 404 `Not found` for one the mock does not
   * have. Counted over the whole run: no reset clears it, {@link clearCoverage} does.
   *
   * @example core.coverage({ orgId }).groups // [{ group: 'identify', total: 6, met: 2 }, …]
   */
  coverage(scope: { orgId?: string | undefined } = {}): CoverageReport {
    const { orgId } = scope
    if (orgId !== undefined && !this.#tenants.has(orgId)) throw new ApiError('notFound')
    return this.#coverage.report(orgId)
  }

  /** Starts the counts of {@link coverage} afresh, for the whole mock and every organisation. */
  clearCoverage(): void {
    this.#coverage.clear()
  }

  /** Redeems a sign-in token as the web view does: once, before it expires, for its organisation. */
  async redeemToken(orgId: string, token: string): Promise<RedeemResult> {
    const transactions = this.#transactions
    return transactions.exclusive(async () => {
      const result = redeemSignInToken(transactions.ctx, orgId, token)
      await transactions.settle()
      return result
    })
  }

  /** Clears the journal entries, queued faults, chaos and webhook deliveries of organisation `orgId`. */
  #forgetCallsOf(orgId: string): void {
    this.#faults.clearOrganisation(orgId)
    this.#journal.forget(orgId)
    this.#latency.forget(orgId)
    this.chaos.forget(orgId)
    this.#webhooks.forgetOrganisation(orgId)
  }
}

export const resetScopeSchema = z.strictObject({ orgId: z.string().min(1).max(1024).optional() })
