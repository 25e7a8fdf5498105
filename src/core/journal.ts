import * as z from 'zod'
import { gatewayNameSchema } from '../api/gateway.ts'
import type { JournaledFailure } from './failure-answer.ts'
import { failureKindNames } from './failure-kinds.ts'
import { type ApiCall, apiRoutes, type Operation } from './routes.ts'

export type { JournaledFailure } from './failure-answer.ts'

export { type JsonValue, maxJournaledBodyBytes } from './journaled-body.ts'

/**
 * What an API call asked, by operation, as its route reads it: identify's body as parsed JSON
 * (`null` when it was not JSON or was larger than `maxJournaledBodyBytes`), delete's path
 * parameters.
 */
type AskedBy = { [C in ApiCall as C['operation']]: C['request'] }

/** An operation and what its call asked. */
export type CallRequest = { [O in Operation]: { operation: O; request: AskedBy[O] } }[Operation]

/** An API call of `O` the routes matched, whatever its answer: what `calls()` lists. */
export type CallOf<O extends Operation> = {
  [K in O]: K extends 'identify'
    ? {
        operation: K
        request: AskedBy[K]
        status: number
        time: string
        orgTime: string
        /** Of an identify answered 200: the answer shape it took, `full` or a case's name. */
        shape?: string
        /** Of a call a fault answered: its kind, its status and whether it took effect first. */
        failure?: JournaledFailure
        /** Its client had gone before its answer was ready: `status` is what it would have had. */
        clientGone?: true
      }
    : {
        operation: K
        request: AskedBy[K]
        status: number
        time: string
        orgTime: string
        /** Of a call a fault answered: its kind, its status and whether it took effect first. */
        failure?: JournaledFailure
        /** Its client had gone before its answer was ready: `status` is what it would have had. */
        clientGone?: true
      }
}[O]

/** An API call of either operation. */
export type Call = CallOf<Operation>

/**
 * One request, as the journal keeps it: never a key, a token or a query string. A request the
 * API's routes matched also has its `operation` and `request`.
 */
export type JournalEntry = {
  /** When it was answered, on the real clock. */
  time: string
  /** When it was answered, on the clock of the organisation that owns it (the mock's for none). */
  orgTime: string
  method: string
  path: string
  /**
   * The status the mock answered: its rule's, for a call that ran (a fault applied included);
   * for one a fault stopped before it ran, the fault's status, or 0 when it sends none.
   */
  status: number
  durationMs: number
  /** The delay the call got, in milliseconds: latency, `delayMs`, and its fault's (a hang's bound). */
  delayMs: number
  /** Of an identify answered 200: the answer shape it took, `full` or a case's name. */
  shape?: string
  /** Of a call a fault answered: its kind, its status and whether it took effect first. */
  failure?: JournaledFailure
  /**
   * Its client had gone before its answer was ready (during its delay): the call ended at once,
   * `status` being the answer it would have had; its effect, applied before, stays.
   */
  clientGone?: true
} & (CallRequest | { operation?: undefined; request?: undefined })

/**
 * {@link JournalEntry} as a schema, for the documents that describe `GET /__mock/requests`: the
 * type above says, besides, which `request` goes with which `operation`.
 *
 * @example journalEntrySchema.parse({ time, method: 'DELETE', path, status: 200, durationMs: 0.2, operation: 'delete', request: { orgId, id } })
 */
export const journalEntrySchema = z.object({
  time: z.string().describe('when the call was answered, on the real clock, ISO 8601'),
  orgTime: z
    .string()
    .describe(
      "when the call was answered, on the clock of the organisation that owns it (the mock's for a call of none), ISO 8601",
    ),
  method: z.string(),
  path: z.string().describe('without the query string; a secret in it is [redacted]'),
  status: z
    .int()
    .describe(
      "the mock's answer: its rule's for a call that ran; for one a fault stopped first, the fault's status, or 0 when it sends none",
    ),
  durationMs: z.number(),
  delayMs: z.number().describe("the delay the call got: latency, delayMs and its fault's"),
  operation: z.enum(apiRoutes.map((route) => route.operation)).optional(),
  request: z
    .unknown()
    .optional()
    .describe(
      "what the call asked: identify's JSON body (null when it was not JSON, too large or not read), delete's path parameters",
    ),
  shape: z.string().optional().describe('of an identify answered 200: the answer shape it took'),
  failure: z
    .strictObject({
      kind: z.enum(failureKindNames),
      status: z.int().optional().describe("the status the client got, a gateway page's included"),
      applied: z.boolean(),
      case: z.string().optional().describe('of a failure a chaos drew: the case it drew'),
      chaos: z.literal(true).optional().describe('drawn by a chaos, not queued'),
      gateway: gatewayNameSchema
        .exclude(['none'])
        .optional()
        .describe('the gateway in front of the call, when there was one'),
    })
    .optional()
    .describe('of a call a fault answered: what the client met instead of its answer'),
  clientGone: z
    .literal(true)
    .optional()
    .describe(
      'its client had gone before its answer was ready (during its delay): the call ended at once, status being the answer it would have had',
    ),
})

/**
 * The organisation and user a call names, as far as it names them: the `orgId` and `id` of what it
 * asked (identify's body, when they are text; delete's path parameters), whatever the route. A
 * scoped fault's `id` matches the call's `id`; the owner is always the key's.
 *
 * @example targetOf({ operation: 'delete', request: { orgId: 'org-1', id: 'u-1' } }) // { orgId: 'org-1', id: 'u-1' }
 */
export function targetOf(call: CallRequest): { orgId?: string; id?: string } {
  const request: unknown = call.request
  if (typeof request !== 'object' || request === null || Array.isArray(request)) return {}
  const { orgId, id } = request as Record<string, unknown>
  const target: { orgId?: string; id?: string } = {}
  if (typeof orgId === 'string') target.orgId = orgId
  if (typeof id === 'string') target.id = id
  return target
}

/**
 * The API calls among journal entries (of `operation` if given), oldest first.
 *
 * @example callsIn(journal.list(), 'delete') // [{ operation: 'delete', request: { orgId, id }, status, time }]
 */
export function callsIn<O extends Operation>(
  entries: readonly JournalEntry[],
  operation?: O,
): CallOf<O>[] {
  const calls: Call[] = []
  for (const entry of entries) {
    if (entry.operation === undefined) continue
    if (operation !== undefined && entry.operation !== operation) continue
    const { method, path, durationMs, delayMs, ...call } = entry
    calls.push(call as Call)
  }
  return calls as CallOf<O>[]
}

/**
 * The query of `GET /__mock/requests` and `GET /__mock/webhooks/deliveries`: `limit` keeps the
 * newest entries only.
 */
export const journalQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional(),
})

/** `GET /__mock/requests`' query: a limit, and the organisation whose calls to list. */
export const requestsQuerySchema = journalQuerySchema.extend({
  orgId: z.string().min(1).max(1024).optional(),
})

/** Which calls to read: those of one organisation, or every call. */
export interface CallScope {
  /**
   * Only the calls this organisation owns: those its API keys authenticated (whatever their
   * answer), and the web-view requests that name it.
   */
  orgId?: string
}

/**
 * The newest `limit` of `entries` (oldest first), or all of them without a limit: what a
 * `journalQuerySchema` query asks for.
 *
 * @example
 * newestEntries(['a', 'b', 'c'], 2) // ['b', 'c']
 */
export function newestEntries<T>(entries: T[], limit: number | undefined): T[] {
  return limit ? entries.slice(-limit) : entries
}
