import { type Exchange, sendRequest } from './exchange.ts'
import { createRunContext, deletePath, planSteps, type RunContext, type Step } from './plan.ts'
import { isFailing, type VerifyReport } from './report.ts'
import type { Results } from './row.ts'
import { verifyRows } from './rows.ts'
import {
  maxVerifyRequests,
  type ResolvedVerifyOptions,
  resolveVerifyOptions,
  VerifyError,
  type VerifyOptions,
} from './verify-options.ts'

/**
 * Runs the contract suite against a deployment of the API and reports, row by row, where it and
 * this mock part ways. It writes one throwaway user (`verify-<random>`), with at most 40
 * sequential requests, and deletes it at the end whatever happens; `throwawayUser.deleted` says
 * whether that worked.
 *
 * Rejects with a {@link VerifyError} when it cannot run: bad options (`invalid-options`), no
 * answer to the first request (`unreachable`), the key refused on the first identify
 * (`refused`), or `signal` aborted (`interrupted`, once the user is deleted).
 *
 * @example
 * const report = await verifyDeployment({ baseUrl: 'https://staging.example.com', apiKey, orgId: 'acme' })
 * for (const check of report.checks) if (check.verdict === 'differs') console.log(check.name)
 */
export async function verifyDeployment(options: VerifyOptions): Promise<VerifyReport> {
  const resolved = resolveVerifyOptions(options)
  const ctx = createRunContext(resolved)
  const send = createSender(resolved, ctx)
  const results: Results = {}
  let interrupted = false
  const steps = planSteps(ctx)
  for (const step of steps) {
    if (resolved.signal?.aborted) {
      interrupted = true
      break
    }
    const exchange = await send(step)
    results[step.name] = exchange
    if (step.name === 'create') refuseToRun(resolved, exchange)
    if (!exchange.answered && exchange.failure === 'interrupted') {
      interrupted = true
      break
    }
  }
  const leftBehind = await deleteWhatWasWritten(ctx, steps, results, send)
  const throwawayUser = {
    orgId: ctx.orgId,
    id: ctx.userId,
    deleted: leftBehind.length === 0,
    leftBehind,
  }
  if (interrupted) {
    throw new VerifyError(
      'interrupted',
      leftBehind.length === 0
        ? `interrupted; the throwaway user ${ctx.userId} was deleted`
        : `interrupted; ${describeLeftBehind(leftBehind).join('; ')}`,
    )
  }
  const checks = verifyRows.map((row) => {
    const { verdict, actual } = row.judge(results, ctx)
    return { name: row.name, kind: row.kind, verdict, expected: row.expected, actual }
  })
  return {
    ok: !checks.some((check) => isFailing(check, resolved.strict)),
    target: resolved.baseUrl,
    checks,
    throwawayUser,
  }
}

type Send = (step: Omit<Step, 'name' | 'purpose'>, interruptible?: boolean) => Promise<Exchange>

/** Sends steps to the target, counting them: never more than {@link maxVerifyRequests}. */
function createSender(options: ResolvedVerifyOptions, ctx: RunContext): Send {
  const base = options.baseUrl.replace(/\/+$/, '')
  const authorizations = {
    key: `Bearer ${options.apiKey}`,
    'lowercase-scheme': `bearer ${options.apiKey}`,
    'unknown-key': `Bearer ${ctx.unknownKey}`,
    none: undefined,
  }
  let sent = 0
  return async (step, interruptible = true) => {
    if (++sent > maxVerifyRequests) {
      throw new Error(`verify would send more than ${maxVerifyRequests} requests`)
    }
    const headers = new Headers()
    const authorization = authorizations[step.auth]
    if (authorization) headers.set('authorization', authorization)
    if (step.body) headers.set('content-type', 'application/json')
    const request = new Request(base + step.path, {
      method: step.method,
      headers,
      body: step.body ? JSON.stringify(step.body) : null,
    })
    return sendRequest(request, {
      fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
      timeoutMs: options.timeoutMs,
      signal: interruptible ? options.signal : undefined,
    })
  }
}

/** Stops a run that cannot tell anything: the target does not answer, or refuses the key. */
function refuseToRun(options: ResolvedVerifyOptions, exchange: Exchange): void {
  if (!exchange.answered && exchange.failure === 'network') {
    throw new VerifyError('unreachable', `cannot reach ${options.baseUrl}: ${exchange.message}`)
  }
  if (exchange.answered && (exchange.answer.status === 401 || exchange.answer.status === 403)) {
    throw new VerifyError(
      'refused',
      `${options.baseUrl} refused the API key for ${options.orgId} (${exchange.answer.status} on the first identify): check the key and the organisation`,
    )
  }
}

/** Whether an exchange shows the user it deleted is gone: 2xx (deleted) or 404 (not there). */
const showsGone = (exchange: Exchange | undefined) =>
  exchange?.answered === true &&
  ((exchange.answer.status >= 200 && exchange.answer.status < 300) ||
    exchange.answer.status === 404)

/** Whether an identify may have written: it was answered 2xx, or not answered at all. */
const mayHaveWritten = (exchange: Exchange | undefined) =>
  exchange !== undefined &&
  (!exchange.answered || (exchange.answer.status >= 200 && exchange.answer.status < 300))

/** How many deletes the clean-up sends to one organisation, when one gets no answer. */
const cleanUpAttempts = 2

/**
 * Deletes the throwaway user in every organisation an identify of the run may have written it to
 * (answered 2xx, or no answer: a request that timed out may still be applied), unless the run's
 * last delete there showed it gone. A delete that gets no answer is sent once more. Not
 * interruptible: it is what an interruption waits for. Returns the users it could not delete.
 */
async function deleteWhatWasWritten(
  ctx: RunContext,
  steps: readonly Step[],
  results: Results,
  send: Send,
): Promise<VerifyReport['throwawayUser']['leftBehind']> {
  const places = new Map<string, { written: boolean; lastDelete?: Exchange | undefined }>()
  for (const step of steps) {
    const orgId = orgIdOf(step, ctx)
    if (orgId === undefined || !(step.name in results)) continue
    const place = places.get(orgId) ?? { written: false }
    if (step.method === 'POST') place.written ||= mayHaveWritten(results[step.name])
    else place.lastDelete = results[step.name]
    places.set(orgId, place)
  }
  const leftBehind = []
  for (const [orgId, place] of places) {
    if (!place.written || showsGone(place.lastDelete)) continue
    const path = deletePath(orgId, ctx.userId)
    let exchange: Exchange | undefined
    for (let attempt = 0; attempt < cleanUpAttempts && !exchange?.answered; attempt++) {
      exchange = await send({ method: 'DELETE', path, auth: 'key' }, false)
    }
    if (!showsGone(exchange)) leftBehind.push({ orgId, id: ctx.userId })
  }
  return leftBehind
}

/** The organisation a step writes the throwaway user to (or deletes it from); `undefined` if none. */
function orgIdOf(step: Step, ctx: RunContext): string | undefined {
  if (step.method === 'POST') {
    return step.body?.id === ctx.userId ? (step.body.orgId as string | undefined) : undefined
  }
  if (step.method !== 'DELETE') return undefined
  return [ctx.orgId, ctx.otherOrgId].find((orgId) => step.path === deletePath(orgId, ctx.userId))
}

/**
 * One sentence per user the run could not delete, naming its organisation and id.
 *
 * @example describeLeftBehind([{ orgId: 'globex', id: 'verify-3f…' }])
 * // ['the throwaway user verify-3f… in globex could NOT be deleted: delete it by hand']
 */
export function describeLeftBehind(users: VerifyReport['throwawayUser']['leftBehind']): string[] {
  return users.map(
    ({ orgId, id }) =>
      `the throwaway user ${id} in ${orgId} could NOT be deleted: delete it by hand`,
  )
}
