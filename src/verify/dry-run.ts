import { createRunContext, planSteps } from './plan.ts'
import type { CheckKind } from './report.ts'
import { verifyRows } from './rows.ts'
import {
  resolveVerifyOptions,
  type VerifyPlanOptions,
  verifyPlanOptionsSchema,
} from './verify-options.ts'

/** What a run would do, without sending anything. */
export interface VerifyPlan {
  target: string
  throwawayUser: { orgId: string; id: string }
  requests: Array<{ method: string; path: string; purpose: string }>
  checks: Array<{ name: string; kind: CheckKind; expected: string }>
}

/**
 * The requests a run would send, in order, and the rows it would judge: what `verify --dry-run`
 * prints. Sends nothing. The ids are made up as a run makes them, so they differ from the next
 * run's. It needs no API key.
 *
 * @example
 * const { requests } = planVerification({ baseUrl, apiKey, orgId: 'acme' }) // 15 requests
 */
export function planVerification(options: VerifyPlanOptions): VerifyPlan {
  const resolved = resolveVerifyOptions(options, verifyPlanOptionsSchema)
  const ctx = createRunContext(resolved)
  return {
    target: resolved.baseUrl,
    throwawayUser: { orgId: ctx.orgId, id: ctx.userId },
    requests: planSteps(ctx).map(({ method, path, purpose }) => ({ method, path, purpose })),
    checks: verifyRows.map(({ name, kind, expected }) => ({ name, kind, expected })),
  }
}
