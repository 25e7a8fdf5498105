import type * as z from 'zod'
import { ApiError, toErrorResponse, type WireResponse } from '../base/errors.ts'
import { organisationSource } from '../base/shares.ts'
import { formatTimestamp, sleepUnlessGone } from '../base/time.ts'
import type { IncomingRequest, RequestBody, WireRequest } from '../base/wire.ts'
import type { ResolvedMockApiOptions } from '../options/mock-api-options.ts'
import { authenticate } from '../rules/authenticate.ts'
import type { RuleContext } from '../rules/context.ts'
import { gatewayOf } from '../rules/gateway.ts'
import { latencyOf } from '../rules/latency.ts'
import { answerWebView } from '../web-view/answer.ts'
import type { CallJournal } from './call-journal.ts'
import type { Chaos } from './chaos.ts'
import { answerItemsOf, type Coverage, failureItemId, webViewItemId } from './coverage.ts'
import { failureAnswer, journaledFailure, unanswered } from './failure-answer.ts'
import { failureKinds } from './failure-kinds.ts'
import type { FaultQueue, TakenFault } from './faults.ts'
import {
  type CallRequest,
  type JournalEntry,
  type JournaledFailure,
  type journalEntrySchema,
  targetOf,
} from './journal.ts'
import type { LatencyDraws } from './latency-draws.ts'
import type { OrganisationLives } from './organisation-lives.ts'
import { redactCall, redactPath } from './redact-secrets.ts'
import { type ApiRoute, matchApiRoute, type Operation } from './routes.ts'
import type { SiteRow } from './site.ts'
import type { Transactions } from './transactions.ts'

/** What answering a request works over. */
export interface AnswerDeps {
  transactions: Transactions
  faults: FaultQueue
  journal: CallJournal
  options: ResolvedMockApiOptions
  /** What the answers given met of the answer space. */
  coverage: Coverage
  latency: LatencyDraws
  /** The failures drawn at a rate, for the calls no queued fault answers. */
  chaos: Chaos
  hasOrganisation(orgId: string): boolean
  /** The organisations' lives: a call counts for the life it was authenticated in. */
  lives: OrganisationLives
}

/** What the journal keeps of a call, gathered on its way (see {@link answerRequest}). */
interface Kept {
  /** The path, with any secret in it redacted. */
  path: string
  /** What the call asked, redacted; none for a call no route has, or one refused before. */
  call?: CallRequest
  /** Of an identify answered 200: the answer shape it took. */
  shape?: string
  /** Of a 200: the kind its route names (identify: `created`, `updated`). */
  outcome?: string | undefined
  /** Its key authenticated it. */
  authenticated?: true
  /** Of a web-view request: what opening its sign-in token came to. */
  opened?: string | undefined
  /** The fault it took, if any. */
  fault?: TakenFault
}

/**
 * Answers one request of the API or the web view, top to bottom, each step once: the route
 * (404, 405), the credentials (401: the call is owned by the organisation whose key it carried,
 * and by none before that), the body (read only for a call that may have one, and never for a
 * refused one, on every way in), then the call's turn in the queue (a forced fault, the rule,
 * keeping its changes), the delay, and the journal. Every failure leaves through one exit, the
 * error's answer. A fault applied lets the call take its whole effect, kept (and committed to a
 * state file) before the fault replaces its answer; one not applied changes nothing. A failure the
 * transport enacts (a reset, a hang, a body cut short) travels as the answer's `failure`.
 * `undefined` when the client went away before its body was read: nothing is answered nor
 * journaled.
 *
 * @example const response = await answerRequest(deps, fromFetchRequest(request), siteRowOf(path))
 */
export async function answerRequest(
  deps: AnswerDeps,
  request: IncomingRequest,
  row: SiteRow,
): Promise<WireResponse | undefined> {
  const started = performance.now()
  const { transactions, journal } = deps
  const webView = row.part === 'webView'
  const ticket = journal.begin(webView ? webViewOwner(deps, request) : undefined)
  if (ticket.owner !== undefined) request.chargeTo?.(organisationSource(ticket.owner))
  let life = deps.lives.of(ticket.owner)
  const kept: Kept = { path: request.pathname }
  let response: WireResponse
  let matched: { route: ApiRoute; params: Record<string, string> } | undefined
  try {
    if (webView) {
      const page = await transactions.call(() =>
        answerWebView(transactions.ctx, { ...request, body: null }, deps.options.webViewMessages),
      )
      response = page.response
      kept.opened = page.outcome
    } else {
      matched = matchApiRoute(request.method, request.pathname)
      const { route, params } = matched
      const authorization = request.headers.get('authorization')
      const owner = authenticate(transactions.ctx, authorization)
      ticket.owner = owner
      life = deps.lives.of(owner)
      kept.authenticated = true
      // What it holds from now on (its connection, its body) is its organisation's.
      request.chargeTo?.(organisationSource(owner))
      // The server's body is read before the call's turn, so that a slow upload holds no other
      // call back; a body at hand (in process), in its turn, so that calls made one after
      // another are answered in that order.
      let body = route.hasBody && !request.bodyAtHand ? await request.readBody() : null
      if (body === undefined) {
        journal.end(ticket)
        return undefined
      }
      response = await transactions.call(async () => {
        const { ctx } = transactions
        if (route.hasBody && request.bodyAtHand) {
          // Gone while in process (its stream failed): its caller has stopped listening.
          body = (await request.readBody()) ?? refuse(new ApiError('badRequest'))
        }
        const begun = route.begin(wireRequestOf(request, body ?? null), params)
        let answered = false
        try {
          // Reset or removed while its body was read: its key may be gone with it.
          const caller = ticket.dropped ? authenticate(ctx, authorization) : owner
          // Scoped by its owner, and by the user id its request names.
          const target = targetOf(begun.call as CallRequest)
          // A queued fault first; only a call none answers draws from the chaos.
          const fault =
            deps.faults.take(route.operation, caller, target.id) ??
            deps.chaos.draw(route.operation, caller)
          if (fault !== undefined) {
            kept.fault = fault
            // Not applied: the call changes nothing, as every fault before.
            if (!fault.applied) return unanswered(fault)
          }
          const { response: answer, shape, outcome } = await begun.answer(ctx, caller)
          answered = true
          kept.shape = shape
          kept.outcome = outcome
          return answer
        } finally {
          // The journal never holds a secret, whatever the answer: redacted in the call's turn,
          // while the secrets it may hold are still the mock's.
          keep(kept, redactCall(ctx, begun.call, answered), begun.call, ctx)
        }
      })
      // Its turn is over: a delayed call holds no body (the journal keeps what it asked).
      body = null
    }
  } catch (error) {
    const { ctx } = transactions
    if (matched && kept.call === undefined) {
      // Refused before its turn (its key, its body): what it asked, as far as it was read.
      const asked = matched.route.begin(wireRequestOf(request, null), matched.params).call
      keep(kept, redactCall(ctx, asked, false), asked, ctx)
    } else if (!matched && !webView) {
      // No route: the call names nobody, and its path may hold a secret.
      kept.path = redactPath(ctx, kept.path)
    }
    const refusal = toErrorResponse(error)
    response = matched ? matched.route.withHeaders(refusal) : refusal
  }
  const { fault } = kept
  const latency = latencyOf(transactions.ctx, ticket.owner)
  const delay =
    deps.options.delayMs +
    (latency === undefined ? 0 : deps.latency.next(latency, ticket.owner)) +
    (fault?.delayMs ?? 0)
  // A hang's bound and a slow body's span are the transport's to spend, after the rest.
  const wait =
    fault && failureKinds[fault.kind].delay.role !== 'before' ? delay - fault.delayMs : delay
  // A client that has gone ends its call at once: nothing left waiting, its effect kept.
  const gone = wait > 0 && (await sleepUnlessGone(wait, request.whenGone))
  // The call has taken its whole effect and kept it, or none: only now is its answer replaced,
  // as the gateway in front of its owner's calls gives it.
  let given = response
  let failure: JournaledFailure | undefined
  if (fault !== undefined && matched) {
    const gateway = gatewayOf(transactions.ctx, ticket.owner)
    given = failureAnswer(fault, response, matched.route, gateway, transactions.ctx.real())
    failure = journaledFailure(fault, given, gateway.gateway)
  }
  journal.end(
    ticket,
    entryOf(request, response, kept, started, transactions.ctx, ticket.owner, delay, failure, gone),
  )
  // Its organisation removed meanwhile: it counts for the whole mock only, never for a new one.
  const { owner } = ticket
  const alive = owner !== undefined && deps.lives.isCurrent(owner, life) ? owner : undefined
  countMet(deps.coverage, alive, matched?.route.operation, response.status, kept)
  return given
}

/** Counts the items of the answer space an answer met, for its owner (see `Coverage`). */
function countMet(
  coverage: Coverage,
  owner: string | undefined,
  operation: Operation | undefined,
  status: number,
  kept: Kept,
): void {
  if (kept.opened !== undefined) coverage.count(owner, webViewItemId(kept.opened))
  if (operation === undefined) return
  const { authenticated, outcome, shape, fault } = kept
  if (fault !== undefined) {
    const failure = failureItemId(operation, fault)
    if (failure !== undefined) coverage.count(owner, failure)
    // Beyond the error table, the client met the failure, not the answer it replaced.
    if (fault.kind !== 'status') return
  }
  for (const id of answerItemsOf({
    operation,
    status,
    credentials: !authenticated,
    outcome,
    shape,
  })) {
    coverage.count(owner, id)
  }
}

/** Notes what the journal keeps of a call: `shown`, and its path redacted too when it was. */
function keep(kept: Kept, shown: CallRequest, asked: CallRequest, ctx: RuleContext): void {
  kept.call = shown
  if (shown !== asked) kept.path = redactPath(ctx, kept.path)
}

function refuse(error: ApiError): never {
  throw error
}

/** The web view has no API key: the organisation it names owns it, when it is one. */
function webViewOwner(deps: AnswerDeps, request: IncomingRequest): string | undefined {
  const named = new URL(request.target, 'http://webview.invalid').searchParams.get('orgId')
  // Never a secret: the name is kept only when it is an organisation's.
  return named !== null && deps.hasOrganisation(named) ? named : undefined
}

/** `request` with the body its transport read: what a route reads. */
function wireRequestOf(request: IncomingRequest, read: RequestBody | null): WireRequest {
  const { method, target, headers } = request
  return read?.bodyTooLarge
    ? { method, target, headers, body: read.body, bodyTooLarge: true }
    : { method, target, headers, body: read?.body ?? null }
}

/** The fields of {@link journalEntrySchema}. */
type Fields = z.input<typeof journalEntrySchema>

/**
 * The journal's entry for a call. Its `time` is the real clock's (the journal orders calls as they
 * happened, whatever a test set), `orgTime` the time of its owner's clock (the mock's for a call of
 * none).
 */
function entryOf(
  { method }: IncomingRequest,
  { status }: WireResponse,
  { path, call, shape }: Kept,
  started: number,
  ctx: RuleContext,
  owner: string | undefined,
  delayMs: number,
  failure: JournaledFailure | undefined,
  clientGone: boolean,
): JournalEntry {
  const time = formatTimestamp(ctx.real())
  // While no clock is set, the owner's is the real one: the same text.
  const orgTime = ctx.db.clocks.size === 0 ? time : formatTimestamp(ctx.now(owner))
  const durationMs = Math.round((performance.now() - started) * 1000) / 1000
  // One literal with every field of the schema, absent ones undefined (the journal lists only
  // those it has): each entry is built whole, in one shape.
  const entry = {
    time,
    orgTime,
    method,
    path,
    status,
    durationMs,
    delayMs,
    clientGone: clientGone ? (true as const) : undefined,
    operation: call?.operation,
    request: call?.request,
    shape: call && shape,
    failure: call && failure,
  } satisfies Fields & Record<keyof Fields, unknown>
  // The route's call gives the request that goes with its operation.
  return entry as JournalEntry
}
