import * as z from 'zod'
import { identifyUserRequestSchema } from '../api/api-schemas.ts'
import {
  ApiError,
  type ApiErrorCode,
  apiErrors,
  InvalidInput,
  parseOptions,
} from '../base/errors.ts'
import { heldBytes } from '../base/held-bytes.ts'
import {
  controlSource,
  defaultSourceShare,
  organisationSource,
  Shares,
  type Source,
} from '../base/shares.ts'
import {
  type FailureCase,
  type FailureCaseName,
  failureCaseNamed,
  failureCaseNameSchema,
} from './failure-cases.ts'
import {
  appliedValues,
  type FailureKind,
  type FailureKindName,
  failureKindNames,
  failureKinds,
} from './failure-kinds.ts'
import { type ApiRoute, apiRoutes, type Operation } from './routes.ts'

export type { Operation } from './routes.ts'

/**
 * The documented errors of each operation, read from its route: the only answers a forced fault
 * may take.
 *
 * @example operationErrors.delete // ['forbidden', 'userNotFound', 'internal']
 */
export const operationErrors = Object.fromEntries(
  apiRoutes.map(({ operation, errors }) => [operation, errors]),
) as { [R in ApiRoute as R['operation']]: R['errors'] }

const operations = apiRoutes.map(({ operation }) => operation) as [Operation, ...Operation[]]

/**
 * The statuses a forced fault of `operation` may take.
 *
 * @example statusesOf('delete') // [403, 404, 500]
 */
export const statusesOf = (operation: Operation): number[] =>
  operationErrors[operation].map((code: ApiErrorCode) => apiErrors[code].status)

/** `[400, 403, 500]` as `400, 403 or 500`. */
const inWords = (statuses: readonly number[]) =>
  statuses.length < 2
    ? statuses.join('')
    : `${statuses.slice(0, -1).join(', ')} or ${statuses.at(-1)}`

/**
 * The statuses a fault of `kind` takes for `operation`: its documented error rows for `status`,
 * the gateway's for `gateway`, none for a kind that sends no status.
 *
 * @example kindStatuses('gateway', 'delete') // [429, 502, 503, 504]
 */
export function kindStatuses(kind: FailureKindName, operation: Operation): readonly number[] {
  const { statuses } = failureKinds[kind] as FailureKind
  if (statuses === undefined) return []
  return statuses === 'documented' ? statusesOf(operation) : Object.keys(statuses).map(Number)
}

/** What every fault may carry beside what it is: how many calls, and whose. */
const scopeShape = {
  count: z.int().min(1).default(1),
  /** Taken only by calls this organisation owns (whose API key authenticated them). */
  orgId: identifyUserRequestSchema.shape.orgId.optional(),
  /** With `orgId`: taken only by calls for this user id too. */
  id: identifyUserRequestSchema.shape.id.optional(),
}

/** A fault for one user id is scoped to its organisation too: the refinement of both schemas. */
const idNeedsOrgId: [
  (fault: { id?: string | undefined; orgId?: string | undefined }) => boolean,
  { message: string; path: PropertyKey[] },
] = [
  (fault) => fault.id === undefined || fault.orgId !== undefined,
  { message: 'a fault for one user id needs its orgId too', path: ['id'] },
]

/**
 * A forced fault of one kind (see `failureKinds`), as `failNext` and `POST /__mock/faults` take
 * it. Without `kind`, today's fault: a documented error row of the operation.
 *
 * @example kindFaultSchema.parse({ operation: 'delete', status: 500, count: 2, delayMs: 100 })
 * @example kindFaultSchema.parse({ operation: 'delete', kind: 'reset', applied: true })
 */
export const kindFaultSchema = z
  .strictObject({
    operation: z.enum(operations),
    kind: z
      .enum(failureKindNames)
      .default('status')
      .describe(
        'what the client meets: `status` (a documented error row, the default), or a failure',
      ),
    status: z
      .int()
      .optional()
      .describe(
        "a documented error row's status (kind status), or the gateway's: 429, 502, 503 or 504",
      ),
    applied: z
      .boolean()
      .optional()
      .describe(
        'true: the call takes its whole effect first, then the failure replaces its answer; default false (truncated and slow: always true)',
      ),
    retryAfterSeconds: z
      .int()
      .min(0)
      .max(86_400)
      .nullable()
      .optional()
      .describe(
        "a gateway 429's or 503's Retry-After, in seconds; null: none. Default: 1 on a 429 with no gateway in front, none otherwise (nginx and haproxy send none)",
      ),
    retryAfterDate: z
      .boolean()
      .optional()
      .describe('true: the Retry-After written as an HTTP date, that many seconds ahead'),
    ...scopeShape,
    delayMs: z
      .int()
      .min(0)
      .max(600_000)
      .optional()
      .describe(
        "a wait before the answer; a hang's bound (default 30000); a slow body's span (default 2000)",
      ),
  })
  .superRefine(
    ({ operation, kind, status, applied, retryAfterSeconds, retryAfterDate }, context) => {
      const fail = (path: string, message: string) =>
        context.addIssue({ code: 'custom', message, path: [path] })
      const statuses = kindStatuses(kind, operation)
      if (statuses.length === 0) {
        if (status !== undefined) fail('status', `a ${kind} fault takes no status`)
      } else if (status === undefined || !statuses.includes(status)) {
        fail(
          'status',
          kind === 'status'
            ? `${operation} documents ${inWords(statuses)}: a fault takes one of them`
            : `a ${kind} fault takes ${inWords(statuses)}`,
        )
      }
      if (applied !== undefined && !appliedValues(kind, status).includes(applied)) {
        fail(
          'applied',
          applied
            ? `a ${status} fault changes nothing: only a 500, or a failure of another kind, may be applied`
            : `a ${kind} fault carries the real answer: it is always applied`,
        )
      }
      const retryAfter = kind === 'gateway' && (status === 429 || status === 503)
      if (retryAfterSeconds !== undefined && !retryAfter) {
        fail('retryAfterSeconds', 'goes with a gateway fault of status 429 or 503 only')
      }
      if (retryAfterDate !== undefined && !retryAfter) {
        fail('retryAfterDate', 'goes with a gateway fault of status 429 or 503 only')
      } else if (retryAfterDate && retryAfterSeconds === null) {
        fail('retryAfterDate', 'a date needs a delay: retryAfterSeconds null sends no Retry-After')
      }
    },
  )
  .refine(...idNeedsOrgId)

/**
 * A failure case armed by its name (see `failureCases`), for the next `count` calls of its
 * operation (that `orgId` owns, for user `id`).
 *
 * @example caseFaultSchema.parse({ case: 'delete-reset-applied', orgId: 'acme' })
 */
const caseFaultSchema = z
  .strictObject({ case: failureCaseNameSchema, ...scopeShape })
  .refine(...idNeedsOrgId)

/**
 * A forced fault, as `POST /__mock/faults` takes it: of one kind, or a failure case by its name.
 *
 * @example faultSchema.parse({ case: 'identify-gateway-502' })
 */
export const faultSchema = z.union([kindFaultSchema, caseFaultSchema])

/** A fault of one kind, its operation included: `POST /__mock/faults`' body without a case. */
export type Fault = z.input<typeof kindFaultSchema>
/** A fault of one kind, as `failNext(operation, fault)` takes it. */
export type FaultOptions = Omit<Fault, 'operation'>
/** A failure case armed by its name, as `POST /__mock/faults` takes it. */
export type CaseFault = z.input<typeof caseFaultSchema>
/** Whose calls, and how many, a case armed by `failNext(name, options)` is for. */
export type CaseOptions = Omit<CaseFault, 'case'>

/**
 * What `failNext` takes: an operation and a fault of one kind, or a failure case's name (and
 * whose calls, how many).
 *
 * @example api.failNext('delete', { kind: 'reset', applied: true })
 * @example api.failNext('delete-reset-applied', { count: 2 })
 */
export type FailNextArgs =
  | [operation: Operation, fault: FaultOptions]
  | [failureCase: FailureCaseName, options?: CaseOptions]

/**
 * The fault `failNext`'s arguments give: `POST /__mock/faults`' body.
 *
 * @example faultOf('delete-reset-applied') // { case: 'delete-reset-applied' }
 */
export function faultOf(...[first, options]: FailNextArgs): Fault | CaseFault {
  return (operations as readonly string[]).includes(first)
    ? { ...(options as FaultOptions), operation: first as Operation }
    : { ...options, case: first as FailureCaseName }
}

/**
 * The most faults queued at once for one organisation (those scoped to it), and the most unscoped
 * ones, both operations together: past it `failNext` throws a `TypeError` (and
 * `POST /__mock/faults` answers 400). Per organisation, so that one tenant's faults never refuse
 * another's.
 *
 * @example if (tenant.queuedFaults().length < maxQueuedFaults) tenant.failNext('delete', { status: 500 })
 */
const maxQueuedFaults = 1000

/**
 * What every queued fault holds together at most, in bytes as held (see {@link faultBytes}): the
 * bound of the whole queue, whatever the number of organisations (an `orgId` and an `id` may each
 * be 1,024 characters).
 */
export const maxQueuedFaultBytes = 16 * 1024 * 1024

/** What a queued fault holds, in bytes: a fixed part, and its `orgId` and `id` as held. */
function faultBytes(fault: { orgId?: string | undefined; id?: string | undefined }): number {
  return 128 + heldBytes(fault.orgId ?? '') + heldBytes(fault.id ?? '')
}

/**
 * A queued fault as `GET /__mock/faults` shows it: how many calls it will still answer. `kind` is
 * shown when it is not `status`, and `applied` when it is true, so that today's faults read as
 * they did.
 *
 * @example queuedFaultSchema.parse({ operation: 'delete', status: 500, remaining: 2, delayMs: 0 })
 */
export const queuedFaultSchema = z.strictObject({
  operation: z.enum(operations),
  kind: z.enum(failureKindNames).optional().describe('absent: status'),
  status: z.int().optional(),
  applied: z.literal(true).optional().describe('absent: false'),
  retryAfterSeconds: z.int().nullable().optional().describe('null: no Retry-After'),
  retryAfterDate: z.literal(true).optional(),
  case: z.string().optional().describe('the failure case it was armed by'),
  remaining: z.int().min(1),
  delayMs: z.int().min(0),
  orgId: z.string().optional(),
  id: z.string().optional(),
})

export type QueuedFaultView = z.output<typeof queuedFaultSchema>

/**
 * What a call that takes a fault is given, resolved from the fault's kind (its defaults filled
 * in): one object for every call the fault answers.
 */
export interface TakenFault {
  readonly kind: FailureKindName
  readonly status?: number
  /** Of kind `status`: the documented error row. */
  readonly code?: ApiErrorCode
  readonly applied: boolean
  readonly delayMs: number
  /**
   * Of a gateway 429 or 503: its `Retry-After` with no gateway in front, in seconds (a 429's 1
   * unless given); `null` for none.
   */
  readonly retryAfterSeconds?: number | null
  /** The `Retry-After` was asked for (`retryAfterSeconds` or `retryAfterDate` given): a gateway sends it too. */
  readonly retryAfterAsked?: true
  /** The `Retry-After` written as an HTTP date. */
  readonly retryAfterDate?: true
  /** The failure case it was armed by. */
  readonly case?: string
  /** Drawn by a chaos (see `Chaos`), not queued. */
  readonly chaos?: true
}

/** A fault of one organisation as a snapshot keeps it: resolved, with the calls it still answers. */
export interface SavedFault {
  operation: Operation
  taken: TakenFault
  remaining: number
  id?: string
}

interface QueuedFault {
  taken: TakenFault
  remaining: number
  orgId?: string | undefined
  id?: string | undefined
}

/**
 * `fault` read by its schema, a case by its name, and resolved: the kind's defaults filled in.
 * Throws a `TypeError` that says what is wrong.
 */
function resolveFault(fault: Fault | CaseFault): {
  operation: Operation
  taken: TakenFault
  count: number
  orgId?: string
  id?: string
} {
  if ('case' in fault) {
    const { case: name, count, orgId, id } = parseOptions(caseFaultSchema, fault, 'fault')
    const { operation } = failureCaseNamed(name) as FailureCase
    return { operation, taken: takenOfCase(name), count, orgId, id }
  }
  const { operation, count, orgId, id, ...rest } = parseOptions(kindFaultSchema, fault, 'fault')
  return { operation, taken: takenOf({ operation, ...rest }), count, orgId, id }
}

/**
 * What a call that meets failure case `name` is given: the case's kind with its defaults filled in.
 *
 * @example takenOfCase('delete-reset-applied') // { kind: 'reset', applied: true, delayMs: 0, case: 'delete-reset-applied' }
 */
export function takenOfCase(name: FailureCaseName): TakenFault {
  const { operation, kind, status, applied } = failureCaseNamed(name) as FailureCase
  return takenOf({ operation, kind, status, applied, case: name })
}

/** A fault's {@link TakenFault}: its kind's defaults filled in. */
function takenOf(fault: {
  operation: Operation
  kind: FailureKindName
  status?: number | undefined
  applied?: boolean | undefined
  delayMs?: number | undefined
  retryAfterSeconds?: number | null | undefined
  retryAfterDate?: boolean | undefined
  case?: string
}): TakenFault {
  const { operation, kind, status } = fault
  const errors: readonly ApiErrorCode[] = operationErrors[operation]
  const code = kind === 'status' ? errors.find((c) => apiErrors[c].status === status) : undefined
  const retryAfterSeconds =
    kind === 'gateway' && status === 429
      ? fault.retryAfterSeconds === undefined
        ? 1
        : fault.retryAfterSeconds
      : fault.retryAfterSeconds
  const asked = fault.retryAfterSeconds !== undefined || fault.retryAfterDate === true
  return {
    kind,
    ...(status !== undefined && { status }),
    ...(code !== undefined && { code }),
    applied: fault.applied ?? (appliedValues(kind, status)[0] as boolean),
    delayMs: fault.delayMs ?? failureKinds[kind].delay.defaultMs,
    ...(retryAfterSeconds !== undefined && { retryAfterSeconds }),
    ...(asked && { retryAfterAsked: true as const }),
    ...(fault.retryAfterDate === true && { retryAfterDate: true as const }),
    ...(fault.case !== undefined && { case: fault.case }),
  }
}

/** Who holds a queued fault: the organisation it is scoped to; an unscoped one, the controls. */
const sourceOfFault = (orgId: string | undefined): Source =>
  orgId === undefined ? controlSource : organisationSource(orgId)

/**
 * Forced faults, queued per operation in the order given. What they hold is charged to their
 * source (see {@link sourceOfFault}): each holds at most its `share` of
 * {@link maxQueuedFaultBytes}, so that one tenant's faults never refuse another's within its share.
 */
export class FaultQueue {
  readonly #queues = new Map<Operation, QueuedFault[]>()
  /** How many faults are queued per organisation they are scoped to (`''`: unscoped). */
  readonly #perScope = new Map<string, number>()
  /** What the queued faults hold, in bytes (see {@link faultBytes}), in all and per source. */
  readonly #bytes: Shares

  constructor(share: number = defaultSourceShare) {
    this.#bytes = new Shares(maxQueuedFaultBytes, share)
  }

  /**
   * Throws a `TypeError` that says what is wrong with a fault that is not allowed, and the API's
   * 404 `Not found` for an `orgId` that `exists` says the mock does not have.
   */
  add(fault: Fault | CaseFault, exists: (orgId: string) => boolean = () => true): void {
    const { operation, taken, count, orgId, id } = resolveFault(fault)
    if (orgId !== undefined && !exists(orgId)) throw new ApiError('notFound')
    if ((this.#perScope.get(orgId ?? '') ?? 0) >= maxQueuedFaults) {
      const scope = orgId === undefined ? 'unscoped' : 'for one organisation'
      throw new InvalidInput(
        `Invalid fault: at most ${maxQueuedFaults} faults may be queued at once ${scope}: reset, or let queued ones be taken first`,
      )
    }
    const bytes = faultBytes({ orgId, id })
    if (this.#bytes.total + bytes > maxQueuedFaultBytes) {
      throw new InvalidInput(
        `Invalid fault: the queued faults hold ${maxQueuedFaultBytes} bytes at most: reset, or let queued ones be taken first`,
      )
    }
    if (!this.#bytes.fits(sourceOfFault(orgId), bytes)) {
      const whose = orgId === undefined ? 'the unscoped faults' : "one organisation's faults"
      throw new InvalidInput(
        `Invalid fault: ${whose} hold ${this.#bytes.share} bytes at most (their share of ${maxQueuedFaultBytes}): reset, or let queued ones be taken first`,
      )
    }
    const queue = this.#queues.get(operation) ?? []
    queue.push({ taken, remaining: count, ...(orgId !== undefined && { orgId, id }) })
    this.#queues.set(operation, queue)
    this.#counted({ orgId, id }, 1)
  }

  /**
   * The first fault of `operation` queued that matches a call of organisation `orgId` naming user
   * `id`, consumed; `undefined` when none does. An unscoped fault matches every call.
   */
  take(operation: Operation, orgId: string, id: string | undefined): TakenFault | undefined {
    const queue = this.#queues.get(operation)
    if (!queue || queue.length === 0) return undefined
    const at = queue.findIndex(
      (fault) =>
        (fault.orgId === undefined || fault.orgId === orgId) &&
        (fault.id === undefined || fault.id === id),
    )
    const next = queue[at]
    if (!next) return undefined
    if (--next.remaining === 0) {
      queue.splice(at, 1)
      this.#counted(next, -1)
    }
    return next.taken
  }

  /** Forgets the faults scoped to organisation `orgId`. */
  clearOrganisation(orgId: string): void {
    for (const [operation, queue] of this.#queues) {
      for (const fault of queue) if (fault.orgId === orgId) this.#counted(fault, -1)
      this.#queues.set(
        operation,
        queue.filter((fault) => fault.orgId !== orgId),
      )
    }
  }

  /**
   * The faults scoped to organisation `orgId`, as plain data, in the order they will be taken:
   * what a snapshot keeps, and {@link restoreOrganisation} queues again.
   */
  savedOf(orgId: string): SavedFault[] {
    return operations.flatMap((operation) =>
      (this.#queues.get(operation) ?? [])
        .filter((fault) => fault.orgId === orgId)
        .map(({ taken, remaining, id }) => ({
          operation,
          taken: { ...taken },
          remaining,
          ...(id !== undefined && { id }),
        })),
    )
  }

  /**
   * Replaces the faults scoped to organisation `orgId` with `saved` (from {@link savedOf}, of it or
   * of another organisation), queued after the others, in their order.
   */
  restoreOrganisation(orgId: string, saved: readonly SavedFault[]): void {
    this.clearOrganisation(orgId)
    for (const { operation, taken, remaining, id } of saved) {
      const fault: QueuedFault = { taken: { ...taken }, remaining, orgId, id }
      const queue = this.#queues.get(operation) ?? []
      queue.push(fault)
      this.#queues.set(operation, queue)
      this.#counted(fault, 1)
    }
  }

  /** The faults still queued, in the order they will be taken, each operation's in turn. */
  list(): QueuedFaultView[] {
    return operations.flatMap((operation) =>
      (this.#queues.get(operation) ?? []).map(({ taken, remaining, orgId, id }) => ({
        operation,
        ...(taken.kind !== 'status' && { kind: taken.kind }),
        ...(taken.status !== undefined && { status: taken.status }),
        ...(taken.applied && { applied: true as const }),
        ...(taken.retryAfterSeconds !== undefined && {
          retryAfterSeconds: taken.retryAfterSeconds,
        }),
        ...(taken.retryAfterDate && { retryAfterDate: true as const }),
        ...(taken.case !== undefined && { case: taken.case }),
        remaining,
        delayMs: taken.delayMs,
        ...(orgId !== undefined && { orgId }),
        ...(id !== undefined && { id }),
      })),
    )
  }

  clear(): void {
    this.#queues.clear()
    this.#perScope.clear()
    this.#bytes.clear()
  }

  /** Counts a fault in (`1`) or out (`-1`) of its organisation's number and its source's bytes. */
  #counted(fault: { orgId?: string | undefined; id?: string | undefined }, sign: 1 | -1): void {
    const scope = fault.orgId ?? ''
    const count = (this.#perScope.get(scope) ?? 0) + sign
    if (count > 0) this.#perScope.set(scope, count)
    else this.#perScope.delete(scope)
    const source = sourceOfFault(fault.orgId)
    if (sign === 1) this.#bytes.add(source, faultBytes(fault))
    else this.#bytes.give(source, faultBytes(fault))
  }
}
