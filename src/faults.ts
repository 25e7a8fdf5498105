import { z } from 'zod'
import { type ApiErrorCode, apiErrors, describeIssues } from './errors.ts'

/** The documented errors of each operation: the only answers a forced fault may take. */
export const operationErrors = {
  identify: ['invalidRequest', 'forbidden', 'internal'],
  delete: ['forbidden', 'userNotFound', 'internal'],
} as const satisfies Record<string, readonly ApiErrorCode[]>

export type Operation = keyof typeof operationErrors

/**
 * The statuses a forced fault of `operation` may take.
 *
 * @example statusesOf('delete') // [403, 404, 500]
 */
export const statusesOf = (operation: Operation): number[] =>
  operationErrors[operation].map((code) => apiErrors[code].status)

/**
 * A forced fault, as `failNext` and `POST /__mock/faults` take it.
 *
 * @example faultSchema.parse({ operation: 'delete', status: 500, count: 2, delayMs: 100 })
 */
export const faultSchema = z
  .strictObject({
    operation: z.enum(['identify', 'delete']),
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
export const maxQueuedFaults = 1000

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
  #queues: Record<Operation, QueuedFault[]> = { identify: [], delete: [] }

  /** Throws a `TypeError` that says what is wrong with a fault that is not allowed. */
  add(fault: Fault): void {
    const parsed = faultSchema.safeParse(fault)
    if (!parsed.success)
      throw new TypeError(`Invalid fault: ${describeIssues(parsed.error.issues)}`)
    const { operation, status, count, delayMs } = parsed.data
    if (this.#queues.identify.length + this.#queues.delete.length >= maxQueuedFaults) {
      throw new TypeError(
        `Invalid fault: at most ${maxQueuedFaults} faults may be queued at once: reset, or let queued ones be taken first`,
      )
    }
    const code = operationErrors[operation].find((c) => apiErrors[c].status === status)
    if (code) this.#queues[operation].push({ code, remaining: count, delayMs })
  }

  /** The next fault of `operation`, consumed; `undefined` when none is queued. */
  take(operation: Operation): { code: ApiErrorCode; delayMs: number } | undefined {
    const queue = this.#queues[operation]
    const next = queue[0]
    if (!next) return undefined
    if (--next.remaining === 0) queue.shift()
    return { code: next.code, delayMs: next.delayMs }
  }

  /** The faults still queued, in the order they will be taken, each operation's in turn. */
  list(): QueuedFaultView[] {
    return (Object.keys(this.#queues) as Operation[]).flatMap((operation) =>
      this.#queues[operation].map(({ code, remaining, delayMs }) => ({
        operation,
        status: apiErrors[code].status,
        remaining,
        delayMs,
      })),
    )
  }

  clear(): void {
    this.#queues = { identify: [], delete: [] }
  }
}
