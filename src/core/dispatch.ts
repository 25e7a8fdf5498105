import { ApiError, toErrorResponse, type WireResponse } from '../base/errors.ts'
import type { RingBuffer } from '../base/ring-buffer.ts'
import { sleep } from '../base/time.ts'
import { pathnameOf, type WireRequest } from '../base/wire.ts'
import type { ResolvedMockApiOptions } from '../options/mock-api-options.ts'
import { authenticate } from '../rules/authenticate.ts'
import { formatTimestamp } from '../rules/timestamps.ts'
import { answerWebView } from '../web-view/answer.ts'
import type { FaultQueue } from './faults.ts'
import { isFetchRequest, toWireRequest } from './fetch-adapter.ts'
import { type CallRequest, type JournalEntry, targetOf } from './journal.ts'
import { redactCall, redactPath } from './redact-secrets.ts'
import { type ApiRoute, matchApiRoute } from './routes.ts'
import { siteRowOf } from './site.ts'
import type { Transactions } from './transactions.ts'

/** A journal entry with the organisation its call names. */
export interface ScopedEntry {
  entry: JournalEntry
  orgId: string | undefined
}

/** What answering a request works over. */
export interface DispatchDeps {
  transactions: Transactions
  faults: FaultQueue
  journal: RingBuffer<ScopedEntry>
  options: ResolvedMockApiOptions
  hasOrganisation(orgId: string): boolean
}

/**
 * Answers one request (a {@link WireRequest} or a Fetch `Request`) and journals it. Never throws:
 * every failure is an error response.
 *
 * @example const response = await dispatch(deps, request)
 */
export async function dispatch(
  deps: DispatchDeps,
  input: WireRequest | Request,
): Promise<WireResponse> {
  const { transactions, journal, options } = deps
  const started = performance.now()
  const request = isFetchRequest(input) ? await toWireRequest(input) : input
  const { response, delayMs, call, path, orgId } = await transactions.exclusive(async () => {
    const answer = await answerApi(deps, request)
    try {
      await transactions.settle()
      return answer
    } catch (error) {
      return { ...answer, response: toErrorResponse(error) }
    }
  })
  const delay = delayMs + options.delayMs
  if (delay > 0) await sleep(delay)
  journal.add({
    entry: {
      time: formatTimestamp(transactions.ctx.now()),
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
export async function answerUnread(
  deps: DispatchDeps,
  request: WireRequest,
): Promise<WireResponse | undefined> {
  const pathname = pathnameOf(request.target)
  if (siteRowOf(pathname).part !== 'api') return undefined
  try {
    matchApiRoute(request.method, pathname)
    authenticate(deps.transactions.ctx, request.headers.get('authorization'))
    return undefined
  } catch {
    return dispatch(deps, { ...request, body: null })
  }
}

/** A call of any API route under way. */
type RouteCall = ReturnType<ApiRoute['begin']>

async function answerApi(
  deps: DispatchDeps,
  request: WireRequest,
): Promise<{
  response: WireResponse
  delayMs: number
  call?: CallRequest
  path: string
  orgId?: string | undefined
}> {
  const ctx = deps.transactions.ctx
  const pathname = pathnameOf(request.target)
  let delayMs = 0
  let started: RouteCall | undefined
  let response: WireResponse
  let answered = false
  try {
    if (siteRowOf(pathname).part === 'webView') {
      response = await answerWebView(ctx, request, deps.options.webViewMessages)
      // The organisation a web view names is kept only when it is one: never a secret.
      const named = new URL(request.target, 'http://webview.invalid').searchParams.get('orgId')
      const orgId = named !== null && deps.hasOrganisation(named) ? named : undefined
      return { response, delayMs, path: pathname, orgId }
    }
    const { route, params } = matchApiRoute(request.method, pathname)
    started = route.begin(request, params)
    const orgId = authenticate(ctx, request.headers.get('authorization'))
    const fault = deps.faults.take(route.operation, targetOf(started.call as CallRequest))
    if (fault) {
      delayMs = fault.delayMs
      throw new ApiError(fault.code)
    }
    response = await started.answer(ctx, orgId)
    answered = true
  } catch (error) {
    response = toErrorResponse(error)
  }
  // The journal never holds a secret, whatever the answer: not in the request, not in the path.
  if (!started) return { response, delayMs, path: redactPath(ctx, pathname) }
  const call = redactCall(ctx, started.call, answered)
  const path = call === started.call ? pathname : redactPath(ctx, pathname)
  const { orgId } = targetOf(call)
  return { response: started.withHeaders(response), delayMs, call, path, orgId }
}
