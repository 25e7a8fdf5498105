import type * as z from 'zod'
import { describeIssues } from './issues.ts'
import type { WireFailure } from './wire-failure.ts'

export type { WireFailure } from './wire-failure.ts'

/**
 * Every error the mock and its server answer, by name: the status and message of each live in
 * this one table, and {@link toErrorResponse} is the one way out to the wire.
 */
export const apiErrors = {
  invalidRequest: { status: 400, message: 'Invalid request parameters' },
  badRequest: { status: 400, message: 'Bad request' },
  /** A control request the mock refuses; its message says what is wrong (see {@link InvalidInput}). */
  invalidControlInput: { status: 400, message: 'Invalid control request' },
  unauthorized: { status: 401, message: 'Unauthorized' },
  forbidden: { status: 403, message: 'Forbidden' },
  userNotFound: { status: 404, message: 'User not found' },
  notFound: { status: 404, message: 'Not found' },
  methodNotAllowed: { status: 405, message: 'Method not allowed' },
  conflict: { status: 409, message: 'Conflict' },
  /** A client too slow to send its headers or its body. */
  requestTimeout: { status: 408, message: 'Request timeout' },
  /** An `Expect` header other than `100-continue`. */
  expectationFailed: { status: 417, message: 'Expectation failed' },
  /** Headers over Node's size limit. */
  headerFieldsTooLarge: { status: 431, message: 'Request header fields too large' },
  webhookNotFound: { status: 404, message: 'Webhook endpoint not found' },
  tooManyPendingDeliveries: { status: 429, message: 'Too many webhook deliveries pending' },
  internal: { status: 500, message: 'Internal server error' },
  serviceUnavailable: { status: 503, message: 'Service unavailable' },
} as const

export type ApiErrorCode = keyof typeof apiErrors

/**
 * The one error type of the mock's rules. Its `code` names a row of {@link apiErrors}; the
 * transport turns it into a response in exactly one place ({@link toErrorResponse}). `message`
 * replaces the row's own where the answer says what is wrong (a control request's refusal).
 *
 * @example
 * throw new ApiError('userNotFound')
 * throw new ApiError('methodNotAllowed', { headers: { allow: 'GET, HEAD' } })
 */
export class ApiError extends Error {
  readonly code: ApiErrorCode
  readonly headers: Readonly<Record<string, string>>

  constructor(
    code: ApiErrorCode,
    { headers = {}, message }: { headers?: Record<string, string>; message?: string } = {},
  ) {
    super(message ?? apiErrors[code].message)
    this.name = 'ApiError'
    this.code = code
    this.headers = headers
  }

  get status(): number {
    return apiErrors[this.code].status
  }
}

/**
 * An input a caller gave that the mock refuses (an option, a fault, a webhook endpoint, an
 * event), its message saying what is wrong: thrown as it is to a library caller (it is a
 * `TypeError`), answered 400 `invalidControlInput` by the control endpoints. Any other error
 * is a bug, and answers 500.
 *
 * @example throw new InvalidInput('Invalid webhook: at most 100 endpoints')
 */
export class InvalidInput extends TypeError {}

/**
 * `options` parsed by `schema`, with their defaults; a `TypeError` that says what is wrong
 * otherwise, naming `what` was refused (options, a fault, a webhook, an event).
 *
 * @example parseOptions(mockApiOptionsSchema, { delayMs: -1 }) // throws 'Invalid options: delayMs: …'
 */
export function parseOptions<T extends z.ZodType>(
  schema: T,
  options: z.input<T>,
  what = 'options',
): z.output<T> {
  const parsed = schema.safeParse(options)
  if (!parsed.success)
    throw new InvalidInput(`Invalid ${what}: ${describeIssues(parsed.error.issues, '')}`)
  return parsed.data
}

/** The answer on the wire: what every transport (MSW, `node:http`) writes back as it is. */
export interface WireResponse {
  status: number
  headers: Record<string, string>
  body: string
  /**
   * A failure that replaces this answer on the wire (a reset, a hang, a body cut short): what the
   * transport does instead of writing it whole. Absent on every other answer.
   */
  failure?: WireFailure
}

const jsonHeaders = { 'content-type': 'application/json' }

/** A JSON answer. */
export function jsonResponse(status: number, body: unknown, headers?: Record<string, string>) {
  return { status, headers: { ...jsonHeaders, ...headers }, body: JSON.stringify(body) }
}

/**
 * The single mapper from an error to the wire: an {@link ApiError} becomes its status and
 * `{code, message}`; anything else is a 500, never a stack trace.
 */
export function toErrorResponse(error: unknown): WireResponse {
  const apiError = error instanceof ApiError ? error : new ApiError('internal')
  return jsonResponse(
    apiError.status,
    { code: apiError.status, message: apiError.message },
    apiError.headers,
  )
}
