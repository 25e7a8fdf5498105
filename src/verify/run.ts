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
  const { leftBehind, unanswered } = await deleteWhatWasWritten(
    ctx,
    steps,
    results,
    send,
    resolved.timeoutMs,
  )
  const throwawayUser = {
    orgId: ctx.orgId,
    id: ctx.userId,
    deleted: leftBehind.length === 0,
    leftBehind,
    unanswered,
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

/** What the clean-up found: where the user remains, and where a write of the run got no answer. */
type CleanUp = Pick<VerifyReport['throwawayUser'], 'leftBehind' | 'unanswered'>

/**
 * Deletes the throwaway user in every organisation an identify of the run may have written it to
 * (answered 2xx, or no answer: a request that timed out may still be applied), unless the run's
 * last delete there showed it gone. A delete that gets no answer is sent once more. Where an
 * identify got no answer, its write may land after that delete (or after the run's own delete
 * that showed the user gone): `settleMs` (the request timeout) later, one more delete finds and
 * deletes what it wrote, and the organisation is reported as `unanswered`, `rewritten` when it
 * had. Not interruptible: it is what an interruption waits for.
 */
async function deleteWhatWasWritten(
  ctx: RunContext,
  steps: readonly Step[],
  results: Results,
  send: Send,
  settleMs: number,
): Promise<CleanUp> {
  const places = new Map<
    string,
    { written: boolean; unanswered: boolean; lastDelete?: Exchange | undefined }
  >()
  for (const step of steps) {
    const orgId = orgIdOf(step, ctx)
    if (orgId === undefined || !(step.name in results)) continue
    const place = places.get(orgId) ?? { written: false, unanswered: false }
    const exchange = results[step.name]
    if (step.method === 'POST') {
      place.written ||= mayHaveWritten(exchange)
      place.unanswered ||= exchange?.answered === false
    } else place.lastDelete = exchange
    places.set(orgId, place)
  }
  const id = ctx.userId
  const leftBehind: CleanUp['leftBehind'] = []
  const deleteIn = async (orgId: string) => {
    const path = deletePath(orgId, id)
    let exchange: Exchange | undefined
    for (let attempt = 0; attempt < cleanUpAttempts && !exchange?.answered; attempt++) {
      exchange = await send({ method: 'DELETE', path, auth: 'key' }, false)
    }
    return exchange
  }
  for (const [orgId, place] of places) {
    if (!place.written || showsGone(place.lastDelete)) continue
    if (!showsGone(await deleteIn(orgId))) leftBehind.push({ orgId, id })
  }
  const inDoubt = [...places].filter(
    ([orgId, place]) => place.unanswered && !leftBehind.some((left) => left.orgId === orgId),
  )
  if (inDoubt.length > 0) await new Promise((resolve) => setTimeout(resolve, settleMs))
  const unanswered: CleanUp['unanswered'] = []
  for (const [orgId] of inDoubt) {
    const last = await deleteIn(orgId)
    if (!showsGone(last)) leftBehind.push({ orgId, id })
    const rewritten =
      last?.answered === true && last.answer.status >= 200 && last.answer.status < 300
    unanswered.push({ orgId, id, rewritten })
  }
  return { leftBehind, unanswered }
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
 * One sentence per organisation where a write of the run got no answer: what the last delete,
 * sent a timeout after the clean-up, found, and that a later write cannot be undone from outside.
 *
 * @example describeUnanswered([{ orgId: 'acme', id: 'verify-3f…', rewritten: true }])
 * // ['an identify of the throwaway user verify-3f… in acme got no answer and wrote it after the clean-up: deleted again']
 */
export function describeUnanswered(places: VerifyReport['throwawayUser']['unanswered']): string[] {
  return places.map(({ orgId, id, rewritten }) =>
    rewritten
      ? `an identify of the throwaway user ${id} in ${orgId} got no answer and wrote it after the clean-up: deleted again; a write still later would bring it back`
      : `an identify of the throwaway user ${id} in ${orgId} got no answer: it had not written it a timeout after the clean-up, and a write still later would bring it back`,
  )
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
