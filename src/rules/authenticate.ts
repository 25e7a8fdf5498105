import { ApiError } from '../errors.ts'
import { hashSecret } from '../secrets.ts'
import type { RuleContext } from './context.ts'

const bearer = /^bearer$/i

/**
 * The organisation an `Authorization: Bearer <key>` header acts for. A missing header, another
 * scheme, an empty or unknown key is refused with 401 and `WWW-Authenticate: Bearer` (or 403,
 * when the mock is configured to answer only documented statuses).
 *
 * @example
 * const orgId = authenticate(ctx, request.headers.get('authorization'))
 */
export function authenticate(ctx: RuleContext, authorization: string | null): string {
  // Only spaces and tabs (HTTP's optional whitespace) surround the parts: String#trim would also
  // strip a no-break space or a line separator, and accept a key the real API would refuse.
  const [scheme = '', key = '', ...rest] = (authorization ?? '')
    .replace(/^[ \t]+|[ \t]+$/g, '')
    .split(/[ \t]+/)
  const apiKey =
    bearer.test(scheme) && key && rest.length === 0
      ? ctx.db.apiKeys.get(hashSecret(key))
      : undefined
  if (apiKey) return apiKey.orgId
  throw ctx.authFailureStatus === 403
    ? new ApiError('forbidden')
    : new ApiError('unauthorized', { 'www-authenticate': 'Bearer' })
}
