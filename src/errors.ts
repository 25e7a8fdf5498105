/** Every error the mock answers, by name. The status and message of each live in one table. */
export const apiErrors = {
  invalidRequest: { status: 400, message: 'Invalid request parameters' },
  badRequest: { status: 400, message: 'Bad request' },
  unauthorized: { status: 401, message: 'Unauthorized' },
  forbidden: { status: 403, message: 'Forbidden' },
  userNotFound: { status: 404, message: 'User not found' },
  notFound: { status: 404, message: 'Not found' },
  methodNotAllowed: { status: 405, message: 'Method not allowed' },
  webhookNotFound: { status: 404, message: 'Webhook endpoint not found' },
  tooManyPendingDeliveries: { status: 429, message: 'Too many webhook deliveries pending' },
  internal: { status: 500, message: 'Internal server error' },
  serviceUnavailable: { status: 503, message: 'Service unavailable' },
} as const

export type ApiErrorCode = keyof typeof apiErrors

/**
 * The one error type of the mock's rules. Its `code` names a row of {@link apiErrors}; the
 * transport turns it into a response in exactly one place ({@link toErrorResponse}).
 *
 * @example
 * throw new ApiError('userNotFound')
 */
export class ApiError extends Error {
  readonly code: ApiErrorCode
  readonly headers: Readonly<Record<string, string>>

  constructor(code: ApiErrorCode, headers: Record<string, string> = {}) {
    super(apiErrors[code].message)
    this.name = 'ApiError'
    this.code = code
    this.headers = headers
  }

  get status(): number {
    return apiErrors[this.code].status
  }
}

/** The answer on the wire: what every transport (MSW, `node:http`) writes back as it is. */
export interface WireResponse {
  status: number
  headers: Record<string, string>
  body: string
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

/** Validation issues in one line, e.g. `status: expected a number; count: too small`. */
export function describeIssues(issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>) {
  return issues.map((i) => `${i.path.map(String).join('.') || 'value'}: ${i.message}`).join('; ')
}
