import * as z from 'zod'

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
 * `throwawayUser` names the only user the run wrote, whether it is gone, and where it may remain.
 *
 * @example
 * const report = verifyReportSchema.parse(JSON.parse(stdout))
 */
export const verifyReportSchema = z.strictObject({
  ok: z.boolean(),
  target: z.string(),
  checks: z.array(checkResultSchema),
  throwawayUser: z.strictObject({
    orgId: z.string(),
    id: z.string(),
    /** Whether it is gone from every organisation the run may have written it to. */
    deleted: z.boolean(),
    /** Where it may remain: each organisation (and id) where the clean-up could not delete it. */
    leftBehind: z.array(z.strictObject({ orgId: z.string(), id: z.string() })),
    /**
     * Each organisation where an identify of the run got no answer, so that its write may land
     * late: checked with one more delete a timeout after the clean-up, `rewritten` when that
     * delete found the user a late write had made again (and deleted it).
     */
    unanswered: z.array(
      z.strictObject({ orgId: z.string(), id: z.string(), rewritten: z.boolean() }),
    ),
  }),
})

export type CheckResult = z.infer<typeof checkResultSchema>
export type CheckKind = CheckResult['kind']
export type Verdict = CheckResult['verdict']
export type VerifyReport = z.infer<typeof verifyReportSchema>

/** Whether a row fails the run: a contract row that differs, or any row that differs when strict. */
export function isFailing(check: Pick<CheckResult, 'kind' | 'verdict'>, strict: boolean): boolean {
  return check.verdict === 'differs' && (strict || check.kind === 'contract')
}
