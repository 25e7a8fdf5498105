import { z } from 'zod'
import { type ApiErrorCode, apiErrors, InvalidInput, parseOptions } from '../errors.ts'
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
  })
  .refine((fault) => statusesOf(fault.operation).includes(fault.status), {
    message: 'status must be one of the documented error statuses of the operation',
    path: ['status'],
  })

export type Fault = z.input<typeof faultSchema>
export type FaultOptions = Omit<Fault, 'operation'>

/**
 * The most faults queued at once, both operations together: past it `failNext` throws a `TypeError`
 * (and `POST /__mock/faults` answers 400), so the queue and `GET /__mock/faults` stay bounded.
 *
 * @example if (api.queuedFaults().length < maxQueuedFaults) api.failNext('delete', { status: 500 })
 */
const maxQueuedFaults = 1000

/** A queued fault as `GET /__mock/faults` shows it: how many calls it will still answer. */
export interface QueuedFaultView {
  operation: Operation
  status: number
  remaining: number
  delayMs: number
}

interface QueuedFault {
  code: ApiErrorCode
  remaining: number
  delayMs: number
}

/** Forced faults, queued per operation in the order given. */
export class FaultQueue {
  readonly #queues = new Map<Operation, QueuedFault[]>()

  /** Throws a `TypeError` that says what is wrong with a fault that is not allowed. */
  add(fault: Fault): void {
    const { operation, status, count, delayMs } = parseOptions(faultSchema, fault, 'fault')
    const queued = [...this.#queues.values()].reduce((sum, queue) => sum + queue.length, 0)
    if (queued >= maxQueuedFaults) {
      throw new InvalidInput(
        `Invalid fault: at most ${maxQueuedFaults} faults may be queued at once: reset, or let queued ones be taken first`,
      )
    }
    const errors: readonly ApiErrorCode[] = operationErrors[operation]
    // The schema has checked that the status is one of the operation's documented errors.
    const code = errors.find((c) => apiErrors[c].status === status) as ApiErrorCode
    const queue = this.#queues.get(operation) ?? []
    queue.push({ code, remaining: count, delayMs })
    this.#queues.set(operation, queue)
  }

  /** The next fault of `operation`, consumed; `undefined` when none is queued. */
  take(operation: Operation): { code: ApiErrorCode; delayMs: number } | undefined {
    const queue = this.#queues.get(operation) ?? []
    const next = queue[0]
    if (!next) return undefined
    if (--next.remaining === 0) queue.shift()
    return { code: next.code, delayMs: next.delayMs }
  }

  /** The faults still queued, in the order they will be taken, each operation's in turn. */
  list(): QueuedFaultView[] {
    return operations.flatMap((operation) =>
      (this.#queues.get(operation) ?? []).map(({ code, remaining, delayMs }) => ({
        operation,
        status: apiErrors[code].status,
        remaining,
        delayMs,
      })),
    )
  }

  clear(): void {
    this.#queues.clear()
  }
}
