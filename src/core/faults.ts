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
 * A forced fault, as `failNext` and `POST /__mock/faults` take it.
 *
 * @example faultSchema.parse({ operation: 'delete', status: 500, count: 2, delayMs: 100 })
 */
export const faultSchema = z
  .strictObject({
    operation: z.enum(operations),
    status: z.int(),
    count: z.int().min(1).default(1),
    delayMs: z.int().min(0).max(600_000).default(0),
    /** Taken only by calls this organisation owns (whose API key authenticated them). */
    orgId: identifyUserRequestSchema.shape.orgId.optional(),
    /** With `orgId`: taken only by calls for this user id too. */
    id: identifyUserRequestSchema.shape.id.optional(),
  })
  .superRefine(({ operation, status }, context) => {
    const statuses = statusesOf(operation)
    if (statuses.includes(status)) return
    context.addIssue({
      code: 'custom',
      message: `${operation} documents ${inWords(statuses)}: a fault takes one of them`,
      path: ['status'],
    })
  })
  .refine((fault) => fault.id === undefined || fault.orgId !== undefined, {
    message: 'a fault for one user id needs its orgId too',
    path: ['id'],
  })

export type Fault = z.input<typeof faultSchema>
export type FaultOptions = Omit<Fault, 'operation'>

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
 * A queued fault as `GET /__mock/faults` shows it: how many calls it will still answer.
 *
 * @example queuedFaultSchema.parse({ operation: 'delete', status: 500, remaining: 2, delayMs: 0 })
 */
export const queuedFaultSchema = z.strictObject({
  operation: z.enum(operations),
  status: z.int(),
  remaining: z.int().min(1),
  delayMs: z.int().min(0),
  orgId: z.string().optional(),
  id: z.string().optional(),
})

export type QueuedFaultView = z.output<typeof queuedFaultSchema>

interface QueuedFault {
  code: ApiErrorCode
  remaining: number
  delayMs: number
  orgId?: string | undefined
  id?: string | undefined
}

/** Forced faults, queued per operation in the order given. */
export class FaultQueue {
  readonly #queues = new Map<Operation, QueuedFault[]>()
  /** How many faults are queued per organisation they are scoped to (`''`: unscoped). */
  readonly #perScope = new Map<string, number>()
  /** What the queued faults hold, in bytes (see {@link faultBytes}). */
  #bytes = 0

  /**
   * Throws a `TypeError` that says what is wrong with a fault that is not allowed, and the API's
   * 404 `Not found` for an `orgId` that `exists` says the mock does not have.
   */
  add(fault: Fault, exists: (orgId: string) => boolean = () => true): void {
    const { operation, status, count, delayMs, orgId, id } = parseOptions(
      faultSchema,
      fault,
      'fault',
    )
    if (orgId !== undefined && !exists(orgId)) throw new ApiError('notFound')
    if ((this.#perScope.get(orgId ?? '') ?? 0) >= maxQueuedFaults) {
      const scope = orgId === undefined ? 'unscoped' : 'for one organisation'
      throw new InvalidInput(
        `Invalid fault: at most ${maxQueuedFaults} faults may be queued at once ${scope}: reset, or let queued ones be taken first`,
      )
    }
    const bytes = faultBytes({ orgId, id })
    if (this.#bytes + bytes > maxQueuedFaultBytes) {
      throw new InvalidInput(
        `Invalid fault: the queued faults hold ${maxQueuedFaultBytes} bytes at most: reset, or let queued ones be taken first`,
      )
    }
    const errors: readonly ApiErrorCode[] = operationErrors[operation]
    // The schema has checked that the status is one of the operation's documented errors.
    const code = errors.find((c) => apiErrors[c].status === status) as ApiErrorCode
    const queue = this.#queues.get(operation) ?? []
    queue.push({ code, remaining: count, delayMs, ...(orgId !== undefined && { orgId, id }) })
    this.#queues.set(operation, queue)
    this.#counted({ orgId, id }, 1)
  }

  /**
   * The first fault of `operation` queued that matches a call of organisation `orgId` naming user
   * `id`, consumed; `undefined` when none does. An unscoped fault matches every call.
   */
  take(
    operation: Operation,
    orgId: string,
    id: string | undefined,
  ): { code: ApiErrorCode; delayMs: number } | undefined {
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
    return { code: next.code, delayMs: next.delayMs }
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

  /** The faults still queued, in the order they will be taken, each operation's in turn. */
  list(): QueuedFaultView[] {
    return operations.flatMap((operation) =>
      (this.#queues.get(operation) ?? []).map(({ code, remaining, delayMs, orgId, id }) => ({
        operation,
        status: apiErrors[code].status,
        remaining,
        delayMs,
        ...(orgId !== undefined && { orgId }),
        ...(id !== undefined && { id }),
      })),
    )
  }

  clear(): void {
    this.#queues.clear()
    this.#perScope.clear()
    this.#bytes = 0
  }

  /** Counts a fault in (`1`) or out (`-1`) of its organisation's number and the bytes held. */
  #counted(fault: { orgId?: string | undefined; id?: string | undefined }, sign: 1 | -1): void {
    const scope = fault.orgId ?? ''
    const count = (this.#perScope.get(scope) ?? 0) + sign
    if (count > 0) this.#perScope.set(scope, count)
    else this.#perScope.delete(scope)
    this.#bytes += sign * faultBytes(fault)
  }
}
