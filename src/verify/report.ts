import { z } from 'zod'

/**
 * One row of a verification report. `contract` rows check what the API description states;
 * `decision` rows check what this mock chose where it is silent (docs/guides/behaviour.md).
 *
 * @example
 * checkResultSchema.parse({ name: 'identify answers 200', kind: 'contract', verdict: 'same', expected: '200', actual: '200' })
 */
export const checkResultSchema = z.strictObject({
  name: z.string(),
  kind: z.enum(['contract', 'decision']),
  verdict: z.enum(['same', 'differs', 'skipped']),
  expected: z.string(),
  actual: z.string(),
})

/**
 * What `verifyDeployment` returns and `verify --json` prints. `ok` is true exactly when no
 * contract row differs (with `strict`, no row at all), which is when the CLI exits 0.
 * `throwawayUser` names the only user the run wrote, and whether it is gone.
 *
 * @example
 * const report = verifyReportSchema.parse(JSON.parse(stdout))
 */
export const verifyReportSchema = z.strictObject({
  ok: z.boolean(),
  target: z.string(),
  checks: z.array(checkResultSchema),
  throwawayUser: z.strictObject({ orgId: z.string(), id: z.string(), deleted: z.boolean() }),
})

export type CheckResult = z.infer<typeof checkResultSchema>
export type CheckKind = CheckResult['kind']
export type Verdict = CheckResult['verdict']
export type VerifyReport = z.infer<typeof verifyReportSchema>

/** Whether a row fails the run: a contract row that differs, or any row that differs when strict. */
export function isFailing(check: Pick<CheckResult, 'kind' | 'verdict'>, strict: boolean): boolean {
  return check.verdict === 'differs' && (strict || check.kind === 'contract')
}
