import { ApiError, toErrorResponse, type WireResponse } from '../base/errors.ts'
import { andThen, type MaybePromise, orElse } from '../base/maybe-promise.ts'
import { formatTimestamp, sleep } from '../base/time.ts'
import {
  type IncomingRequest,
  pathnameOf,
  type RequestBody,
  type WireRequest,
} from '../base/wire.ts'
import type { ResolvedMockApiOptions } from '../options/mock-api-options.ts'
import { shapeNoteOf } from '../rules/answer-shapes.ts'
import { authenticate } from '../rules/authenticate.ts'
import { answerWebView } from '../web-view/answer.ts'
import type { CallJournal, CallTicket } from './call-journal.ts'
import type { FaultQueue } from './faults.ts'
import { type CallRequest, type JournalEntry, targetOf } from './journal.ts'
import { redactCall, redactPath } from './redact-secrets.ts'
import { matchApiRoute } from './routes.ts'
import { siteRowOf } from './site.ts'
import type { Transactions } from './transactions.ts'

/** What answering a request works over. */
export interface DispatchDeps {
  transactions: Transactions
  faults: FaultQueue
  journal: CallJournal
  options: ResolvedMockApiOptions
  hasOrganisation(orgId: string): boolean
}

/** What a request's turn in the queue decided: the answer, and what the journal keeps of it. */
interface Outcome {
  response: WireResponse
  delayMs: number
  path: string
  call?: CallRequest
  /** Of an identify answered 200: the answer shape it took. */
  shape?: string | undefined
}

/**
 * Answers one request, top to bottom, each step once: the web view, or the API's route, the
 * credentials (whose organisation owns the call), the body (read only for a call allowed to
 * have one), then the call's turn in the queue (a forced fault, the rule, keeping its changes),
 * the delay, and the journal. `undefined` when the client went away before its body was read.
 * Never fails: every failure is an error response. The answer comes at once, without a promise,
 * when nothing on the way waits (a body at hand, a rule that answers at once, no store, no delay).
 *
 * @example const response = await answerRequest(deps, fromFetchRequest(request))
 */
export function answerRequest(
  deps: DispatchDeps,
  request: IncomingRequest,
): MaybePromise<WireResponse | undefined> {
  const started = performance.now()
  const pathname = pathnameOf(request.target)
  if (siteRowOf(pathname).part === 'webView') return answerWebViewRequest(deps, request, started)
  const { transactions, journal } = deps
  let matched: ReturnType<typeof matchApiRoute>
  try {
    matched = matchApiRoute(request.method, pathname)
  } catch (error) {
    // No route: the call names nobody, and its path may hold a secret.
    const ticket = journal.begin(undefined)
    return finish(deps, request, ticket, started, () => ({
      response: toErrorResponse(error),
      delayMs: 0,
      path: redactPath(transactions.ctx, pathname),
    }))
  }
  const { route, params } = matched
  const authorization = request.headers.get('authorization')
  let owner: string | undefined
  let refused: unknown
  try {
    owner = authenticate(transactions.ctx, authorization)
  } catch (error) {
    refused = error
  }
  // A call belongs to the organisation whose key it carried; one refused before that, to the
  // organisation its request names, as far as it was read (below).
  const ticket = journal.begin(owner)
  const decide = (read: BodyOutcome | undefined): MaybePromise<Outcome> => {
    const { ctx } = transactions
    const begun = route.begin(wireRequestOf(request, read?.body), params)
    // The organisation and user its request names, read once: its owner when refused before its
    // key, the scope of a forced fault, the journal's answer shape.
    const target = targetOf(begun.call as CallRequest)
    if (owner === undefined) ticket.owner = namedOrganisation(deps, target)
    let delayMs = 0
    const outcome = (response: WireResponse, answered: boolean): Outcome => {
      // The journal never holds a secret, whatever the answer: not in the request, not in the path.
      const call = redactCall(ctx, begun.call, answered)
      const path = call === begun.call ? pathname : redactPath(ctx, pathname)
      const shape = answered && call.operation === 'identify' ? shapeNoteOf(ctx, target) : undefined
      return { response, delayMs, call, shape, path }
    }
    const refusal = (error: unknown) => outcome(route.withHeaders(toErrorResponse(error)), false)
    let answer: MaybePromise<WireResponse>
    try {
      if (refused !== undefined) throw refused
      if (read?.failure !== undefined) throw read.failure
      // Reset or removed while its body was read: its key may be gone with it.
      const caller = ticket.dropped ? authenticate(ctx, authorization) : (owner as string)
      // Scoped by its owner, and by the user id its request names.
      const fault = deps.faults.take(route.operation, caller, target.id)
      if (fault) {
        delayMs = fault.delayMs
        throw new ApiError(fault.code)
      }
      answer = begun.answer(ctx, caller)
    } catch (error) {
      return refusal(error)
    }
    return answer instanceof Promise
      ? answer.then((response) => outcome(response, true), refusal)
      : outcome(answer, true)
  }
  // The body is read only for a call that may have one, or when it costs nothing: never for the
  // server's refused calls. A body at hand (in process) is read in the call's turn, so that calls
  // made one after another are answered in that order; the server's, before it, so that a slow
  // upload holds no other call back.
  const reads = route.hasBody && (owner !== undefined || request.bodyAtHand)
  if (reads && !request.bodyAtHand) {
    return andThen(readBodyOf(request), (read) => {
      if (read.body !== undefined || read.failure !== undefined) {
        return finish(deps, request, ticket, started, () => decide(read))
      }
      journal.end(ticket)
      return undefined
    })
  }
  return finish(deps, request, ticket, started, () =>
    reads ? andThen(readBodyOf(request), decide) : decide(undefined),
  )
}

/** `request` with the body its transport read: what a route reads. */
function wireRequestOf(request: IncomingRequest, read: RequestBody | undefined): WireRequest {
  const { method, target, headers } = request
  return read?.bodyTooLarge
    ? { method, target, headers, body: read.body, bodyTooLarge: true }
    : { method, target, headers, body: read?.body ?? null }
}

/** A body read, or why not: an `ApiError` the transport answers, or nothing (the client left). */
interface BodyOutcome {
  body?: RequestBody
  failure?: unknown
}

function readBodyOf(request: IncomingRequest): MaybePromise<BodyOutcome> {
  const outcome = (body: RequestBody | undefined): BodyOutcome =>
    // Gone while in process: the caller has stopped listening; the call is answered 400.
    body === undefined
      ? request.bodyAtHand
        ? { failure: new ApiError('badRequest') }
        : {}
      : { body }
  const failure = (error: unknown): BodyOutcome => ({ failure: error })
  try {
    const body = request.readBody()
    return body instanceof Promise ? body.then(outcome, failure) : outcome(body)
  } catch (error) {
    return failure(error)
  }
}

/** The web view: no API key, and the organisation it names owns it only when it is one. */
function answerWebViewRequest(
  deps: DispatchDeps,
  request: IncomingRequest,
  started: number,
): MaybePromise<WireResponse> {
  const named = new URL(request.target, 'http://webview.invalid').searchParams.get('orgId')
  // Never a secret: the name is kept only when it is an organisation's.
  const ticket = deps.journal.begin(
    named !== null && deps.hasOrganisation(named) ? named : undefined,
  )
  const path = pathnameOf(request.target)
  return finish(deps, request, ticket, started, () =>
    andThen(
      answerWebView(
        deps.transactions.ctx,
        { ...request, body: null },
        deps.options.webViewMessages,
      ),
      (response) => ({ response, delayMs: 0, path }),
    ),
  )
}

/**
 * Runs `decide` in the request's turn, keeps the changes it made (or answers the failure to keep
 * them; with a store, once the group the call joined is committed), waits the forced and the
 * global delay, then journals the call for its ticket.
 */
function finish(
  deps: DispatchDeps,
  request: IncomingRequest,
  ticket: CallTicket,
  started: number,
  decide: () => MaybePromise<Outcome>,
): MaybePromise<WireResponse> {
  const { transactions, journal, options } = deps
  // A bug in a rule or the redaction: still an answer, and a journal entry with no secret.
  const failed = (error: unknown): Outcome => {
    const path = redactPath(transactions.ctx, pathnameOf(request.target))
    return { response: toErrorResponse(error), delayMs: 0, path }
  }
  const journaled = ({ response, path, call, shape }: Outcome): WireResponse => {
    let entry: JournalEntry | undefined
    try {
      // Built whole, in the order the journal lists its fields: no copy of the call.
      const time = formatTimestamp(transactions.ctx.now())
      const { method } = request
      const { status } = response
      const durationMs = Math.round((performance.now() - started) * 1000) / 1000
      if (call === undefined) entry = { time, method, path, status, durationMs }
      else {
        const { operation, request: asked } = call
        entry = (
          shape === undefined
            ? { time, method, path, status, durationMs, operation, request: asked }
            : { time, method, path, status, durationMs, operation, request: asked, shape }
        ) as JournalEntry
      }
      return response
    } finally {
      journal.end(ticket, entry)
    }
  }
  const delayed = (outcome: Outcome): MaybePromise<WireResponse> => {
    const delay = outcome.delayMs + options.delayMs
    return delay > 0 ? sleep(delay).then(() => journaled(outcome)) : journaled(outcome)
  }
  const unjournaled = (error: unknown): never => {
    journal.end(ticket)
    throw error
  }
  let decided: MaybePromise<Outcome>
  try {
    decided = transactions.call(() => orElse(decide, failed), failedOutcome)
  } catch (error) {
    return unjournaled(error)
  }
  return decided instanceof Promise ? decided.then(delayed, unjournaled) : delayed(decided)
}

/** The outcome of a call whose changes could not be kept: the failure's answer. */
function failedOutcome(outcome: Outcome, error: unknown): Outcome {
  return { ...outcome, response: toErrorResponse(error) }
}

/** The organisation a call's request names, when the mock has it: never a secret. */
function namedOrganisation(
  deps: DispatchDeps,
  { orgId }: { orgId?: string | undefined },
): string | undefined {
  return orgId !== undefined && deps.hasOrganisation(orgId) ? orgId : undefined
}
