/**
 * `identify-api-mock/verify`: the contract suite against a live deployment of the API, for
 * Node. See {@link verifyDeployment}.
 *
 * @example
 * import { verifyDeployment } from 'identify-api-mock/verify'
 * const report = await verifyDeployment({ baseUrl: process.env.STAGING_URL, apiKey, orgId: 'acme' })
 */
export { planVerification, type VerifyPlan } from '../dry-run.ts'
export { formatJUnit } from '../junit.ts'
export {
  type CheckKind,
  type CheckResult,
  checkResultSchema,
  type Verdict,
  type VerifyReport,
  verifyReportSchema,
} from '../report.ts'
export { verifyDeployment } from '../run.ts'
export {
  maxVerifyRequests,
  VerifyError,
  type VerifyErrorReason,
  type VerifyOptions,
  verifyDefaults,
  verifyOptionsSchema,
} from '../verify-options.ts'
export { type FormatOptions, formatPlan, formatReport } from './format-report.ts'
