import * as z from 'zod'
import type { FailureKindName } from './failure-kinds.ts'
import type { Operation } from './routes.ts'

/**
 * A failure case: one operation, one kind (with its status, for the kinds that take one), and
 * whether the call takes its effect before the failure replaces its answer.
 *
 * @example { name: 'delete-reset-applied', operation: 'delete', kind: 'reset', applied: true }
 */
export interface FailureCase<Name extends string = FailureCaseName> {
  /** Lowercase words joined by `-`: the operation, the kind, the status, and `applied` when it may be either. */
  readonly name: Name
  readonly operation: Operation
  readonly kind: FailureKindName
  readonly applied: boolean
  readonly status?: number
}

/**
 * The failure cases, committed: for each operation every kind (each documented status and each
 * gateway status its own), with each `applied` value the kind allows. Users' suites name these
 * cases (`tenant.failNext('delete-reset-applied')`), so the list only grows: a case keeps its
 * place, its name and its meaning, and a new one is appended.
 * `test/rules/failure-cases-cover-every-kind.test.ts` fails when a case allowed by the kinds table
 * is missing (naming the cases to append) and when a committed case goes or changes.
 */
const committedCases = [
  {
    name: 'identify-status-400',
    operation: 'identify',
    kind: 'status',
    applied: false,
    status: 400,
  },
  {
    name: 'identify-status-403',
    operation: 'identify',
    kind: 'status',
    applied: false,
    status: 403,
  },
  {
    name: 'identify-status-500',
    operation: 'identify',
    kind: 'status',
    applied: false,
    status: 500,
  },
  {
    name: 'identify-status-500-applied',
    operation: 'identify',
    kind: 'status',
    applied: true,
    status: 500,
  },
  { name: 'identify-reset', operation: 'identify', kind: 'reset', applied: false },
  { name: 'identify-reset-applied', operation: 'identify', kind: 'reset', applied: true },
  { name: 'identify-hang', operation: 'identify', kind: 'hang', applied: false },
  { name: 'identify-hang-applied', operation: 'identify', kind: 'hang', applied: true },
  { name: 'identify-truncated', operation: 'identify', kind: 'truncated', applied: true },
  { name: 'identify-empty', operation: 'identify', kind: 'empty', applied: false },
  { name: 'identify-empty-applied', operation: 'identify', kind: 'empty', applied: true },
  {
    name: 'identify-gateway-429',
    operation: 'identify',
    kind: 'gateway',
    applied: false,
    status: 429,
  },
  {
    name: 'identify-gateway-429-applied',
    operation: 'identify',
    kind: 'gateway',
    applied: true,
    status: 429,
  },
  {
    name: 'identify-gateway-502',
    operation: 'identify',
    kind: 'gateway',
    applied: false,
    status: 502,
  },
  {
    name: 'identify-gateway-502-applied',
    operation: 'identify',
    kind: 'gateway',
    applied: true,
    status: 502,
  },
  {
    name: 'identify-gateway-503',
    operation: 'identify',
    kind: 'gateway',
    applied: false,
    status: 503,
  },
  {
    name: 'identify-gateway-503-applied',
    operation: 'identify',
    kind: 'gateway',
    applied: true,
    status: 503,
  },
  {
    name: 'identify-gateway-504',
    operation: 'identify',
    kind: 'gateway',
    applied: false,
    status: 504,
  },
  {
    name: 'identify-gateway-504-applied',
    operation: 'identify',
    kind: 'gateway',
    applied: true,
    status: 504,
  },
  { name: 'identify-slow', operation: 'identify', kind: 'slow', applied: true },
  { name: 'delete-status-403', operation: 'delete', kind: 'status', applied: false, status: 403 },
  { name: 'delete-status-404', operation: 'delete', kind: 'status', applied: false, status: 404 },
  { name: 'delete-status-500', operation: 'delete', kind: 'status', applied: false, status: 500 },
  {
    name: 'delete-status-500-applied',
    operation: 'delete',
    kind: 'status',
    applied: true,
    status: 500,
  },
  { name: 'delete-reset', operation: 'delete', kind: 'reset', applied: false },
  { name: 'delete-reset-applied', operation: 'delete', kind: 'reset', applied: true },
  { name: 'delete-hang', operation: 'delete', kind: 'hang', applied: false },
  { name: 'delete-hang-applied', operation: 'delete', kind: 'hang', applied: true },
  { name: 'delete-truncated', operation: 'delete', kind: 'truncated', applied: true },
  { name: 'delete-empty', operation: 'delete', kind: 'empty', applied: false },
  { name: 'delete-empty-applied', operation: 'delete', kind: 'empty', applied: true },
  { name: 'delete-gateway-429', operation: 'delete', kind: 'gateway', applied: false, status: 429 },
  {
    name: 'delete-gateway-429-applied',
    operation: 'delete',
    kind: 'gateway',
    applied: true,
    status: 429,
  },
  { name: 'delete-gateway-502', operation: 'delete', kind: 'gateway', applied: false, status: 502 },
  {
    name: 'delete-gateway-502-applied',
    operation: 'delete',
    kind: 'gateway',
    applied: true,
    status: 502,
  },
  { name: 'delete-gateway-503', operation: 'delete', kind: 'gateway', applied: false, status: 503 },
  {
    name: 'delete-gateway-503-applied',
    operation: 'delete',
    kind: 'gateway',
    applied: true,
    status: 503,
  },
  { name: 'delete-gateway-504', operation: 'delete', kind: 'gateway', applied: false, status: 504 },
  {
    name: 'delete-gateway-504-applied',
    operation: 'delete',
    kind: 'gateway',
    applied: true,
    status: 504,
  },
  { name: 'delete-slow', operation: 'delete', kind: 'slow', applied: true },
] as const satisfies readonly FailureCase<string>[]

/**
 * The failure cases in the committed order: what `api.failures.cases()` and `GET /__mock/failures`
 * list. Static data: the package hands this very list to tests where they are collected, with no
 * server (`identify-api-mock/client`, `/vitest-server`, `/jest-server`), each case's `name` typed
 * as a {@link FailureCaseName}.
 *
 * @example
 * import { failureCases, useTenant } from 'identify-api-mock/vitest-server'
 * const tenant = useTenant()
 * it.each(failureCases)('survives $name', async ({ name }) => { await tenant.failNext(name) })
 */
export const failureCases: readonly FailureCase[] = Object.freeze(
  committedCases.map((c) => Object.freeze({ ...c })),
)

/** The name of a failure case. */
export type FailureCaseName = (typeof committedCases)[number]['name']

const casesByName = new Map<string, FailureCase>(failureCases.map((c) => [c.name, c]))

/** The case named `name`, if there is one. */
export function failureCaseNamed(name: string): FailureCase | undefined {
  return casesByName.get(name)
}

const casesByFields = new Map<string, FailureCase>(
  failureCases.map((c) => [fieldsKey(c.operation, c), c]),
)

function fieldsKey(
  operation: Operation,
  { kind, status, applied }: { kind: FailureKindName; status?: number; applied: boolean },
): string {
  return `${operation} ${kind} ${status ?? ''} ${applied}`
}

/**
 * The case a fault taken by `operation` is, whether armed by the case's name or by its fields.
 *
 * @example failureCaseOf('delete', { kind: 'reset', applied: true })?.name // 'delete-reset-applied'
 */
export function failureCaseOf(
  operation: Operation,
  fault: { kind: FailureKindName; status?: number; applied: boolean },
): FailureCase | undefined {
  return casesByFields.get(fieldsKey(operation, fault))
}

/**
 * A failure case's name; refused with the name it was given.
 *
 * @example failureCaseNameSchema.parse('delete-reset-applied')
 */
export const failureCaseNameSchema = z
  .enum(committedCases.map((c) => c.name) as [FailureCaseName, ...FailureCaseName[]], {
    error: ({ input }) =>
      `expected the name of a failure case (GET /__mock/failures lists them), not ${JSON.stringify(String(input).slice(0, 60))}`,
  })
  .describe('a failure case, by its name')
