import { type Exchange, sendRequest } from './exchange.ts'
import {
  maxVerifyRequests,
  type ResolvedVerifyOptions,
  resolveVerifyOptions,
  VerifyError,
  type VerifyOptions,
} from './options.ts'
import { createRunContext, deletePath, planSteps, type RunContext, type Step } from './plan.ts'
import { isFailing, type VerifyReport } from './report.ts'
import type { Results } from './row.ts'
import { verifyRows } from './rows.ts'

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
  for (const step of planSteps(ctx)) {
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
  const deleted = await deleteWhatWasWritten(ctx, results, send)
  const throwawayUser = { orgId: ctx.orgId, id: ctx.userId, deleted }
  if (interrupted) {
    throw new VerifyError(
      'interrupted',
      deleted
        ? `interrupted; the throwaway user ${ctx.userId} was deleted`
        : `interrupted; the throwaway user ${ctx.userId} of ${ctx.orgId} could NOT be deleted: delete it by hand`,
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

const wasWritten = (exchange: Exchange | undefined) =>
  exchange !== undefined &&
  (!exchange.answered || (exchange.answer.status >= 200 && exchange.answer.status < 300))

/**
 * Deletes the throwaway user wherever the run may have written it (its organisation, and the
 * other one if the target wrongly accepted that identify), unless the run's own deletes showed
 * it gone. Not interruptible: it is what an interruption waits for. True when nothing is left.
 */
async function deleteWhatWasWritten(ctx: RunContext, results: Results, send: Send) {
  const places = [
    {
      orgId: ctx.orgId,
      written: wasWritten(results.create),
      gone: showsGone(results.deleteAgain ?? results.delete),
    },
    {
      orgId: ctx.otherOrgId,
      written: results.otherOrgIdentify?.answered === true && wasWritten(results.otherOrgIdentify),
      gone: showsGone(results.otherOrgDelete),
    },
  ]
  let deleted = true
  for (const place of places) {
    if (!place.written || place.gone) continue
    const path = deletePath(place.orgId, ctx.userId)
    const exchange = await send({ method: 'DELETE', path, auth: 'key' }, false)
    deleted &&= showsGone(exchange)
  }
  return deleted
}
