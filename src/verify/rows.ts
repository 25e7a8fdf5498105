import { contractRows } from './contract-rows.ts'
import { decisionRows } from './decision-rows.ts'
import type { Row } from './row.ts'

/**
 * The contract suite: every row a run judges, contract rows first. The project's own tests run
 * it against the MSW handlers and the standalone server; `verify` runs it against a deployment.
 */
export const verifyRows: readonly Row[] = [...contractRows, ...decisionRows]
