import * as z from 'zod'
import { gatewayNameSchema } from '../api/gateway.ts'
import { failureKindNames } from './failure-kinds.ts'
import { type ApiCall, apiRoutes, type Operation } from './routes.ts'

export { type JsonValue, maxJournaledBodyBytes } from './journaled-body.ts'

/**
 * What an API call asked, by operation, as its route reads it: identify's body as parsed JSON
 * (`null` when it was not JSON or was larger than `maxJournaledBodyBytes`), delete's path
 * parameters.
 */
type AskedBy = { [C in ApiCall as C['operation']]: C['request'] }

/** An operation and what its call asked. */
export type CallRequest = { [O in Operation]: { operation: O; request: AskedBy[O] } }[Operation]

/** An entry's `failure`: see {@link JournaledFailure}. */
const journaledFailureSchema = z.strictObject({
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

/**
 * What the journal notes of a call a fault answered: its kind, the status the client got (of the
 * kinds that take one, and of a failure a gateway answered with its page), whether the call took
 * its effect first, and the gateway in front of it, when there was one.
 *
 * @example { kind: 'reset', status: 502, applied: true, gateway: 'nginx' }
 */
export type JournaledFailure = z.infer<typeof journaledFailureSchema>

/**
 * One request, as the journal keeps it: never a key, a token or a query string. A request the
 * API's routes matched also has its `operation` and `request`. The one declaration of an entry's
 * fields, in the order the journal lists them: {@link JournalEntry} and the journal's lists and
 * JSON are read from it.
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
  clientGone: z
    .literal(true)
    .optional()
    .describe(
      'its client had gone before its answer was ready (during its delay): the call ended at once, status being the answer it would have had',
    ),
  operation: z.enum(apiRoutes.map((route) => route.operation)).optional(),
  request: z
    .unknown()
    .optional()
    .describe(
      "what the call asked: identify's JSON body (null when it was not JSON, too large or not read), delete's path parameters",
    ),
  shape: z.string().optional().describe('of an identify answered 200: the answer shape it took'),
  failure: journaledFailureSchema
    .optional()
    .describe('of a call a fault answered: what the client met instead of its answer'),
})

/** The fields {@link journalEntrySchema} declares, each as its schema reads it. */
type EntryFields = z.infer<typeof journalEntrySchema>

/**
 * {@link journalEntrySchema}'s entry, each `request` typed by its `operation` (see
 * {@link CallRequest}).
 */
export type JournalEntry = Omit<EntryFields, 'operation' | 'request'> &
  (CallRequest | { operation?: undefined; request?: undefined })

/** The fields of an entry, in the order the journal lists them: {@link journalEntrySchema}'s. */
export const journalEntryFields = journalEntrySchema.keyof().options

/** An API call of each operation, as `calls()` lists it. */
type CallBy = {
  [O in Operation]: Flat<
    { operation: O; request: AskedBy[O] } & Omit<
      EntryFields,
      // A call is listed without what only a request has; only identify takes an answer shape.
      | 'operation'
      | 'request'
      | 'method'
      | 'path'
      | 'durationMs'
      | 'delayMs'
      | (O extends 'identify' ? never : 'shape')
    >
  >
}

/** An API call of `O` the routes matched, whatever its answer: what `calls()` lists. */
export type CallOf<O extends Operation> = CallBy[O]

/** An API call of either operation. */
export type Call = CallOf<Operation>

/** `T`'s properties as one object type, as an editor shows them. */
type Flat<T> = { [P in keyof T]: T[P] }

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
