import { ApiError } from '../base/errors.ts'
import { remembered } from '../base/remembered.ts'
import { hashSecret } from '../base/secrets.ts'
import type { RuleContext } from './context.ts'

/**
 * The organisation an `Authorization: Bearer <key>` header acts for. A missing header, another
 * scheme, an empty or unknown key is refused with 401 and `WWW-Authenticate: Bearer` (or 403,
 * when the mock is configured to answer only documented statuses).
 *
 * @example
 * const orgId = authenticate(ctx, request.headers.get('authorization'))
 */
export function authenticate(ctx: RuleContext, authorization: string | null): string {
  const key = bearerCredential(authorization)
  if (key !== undefined) {
    const hash = hashOfKey(key)
    const apiKey = ctx.db.apiKeys.get(hash)
    if (apiKey) {
      // A key a state file holds only as a hash is known in clear from its first use on.
      ctx.db.secretFingerprints.add(key, hash)
      return apiKey.orgId
    }
  }
  throw ctx.authFailureStatus === 403
    ? new ApiError('forbidden')
    : new ApiError('unauthorized', { headers: { 'www-authenticate': 'Bearer' } })
}

/**
 * The credential of an `Authorization: Bearer <credential>` header (the scheme in any case).
 * Only spaces and tabs (HTTP's optional whitespace) separate and surround the parts: String#trim
 * would also strip a no-break space or a line separator, and accept a key the real API refuses.
 */
export function bearerCredential(header: string | null): string | undefined {
  if (header === null) return undefined
  // The spelling every client sends, `Bearer <credential>`, read without the expression.
  if (
    header.startsWith('Bearer ') &&
    header.length > 7 &&
    header.indexOf(' ', 7) === -1 &&
    header.indexOf('\t', 7) === -1
  ) {
    return header.slice(7)
  }
  return header.match(/^[ \t]*bearer[ \t]+([^ \t]+)[ \t]*$/i)?.[1]
}

/**
 * The hashes of the API keys seen last. Hashing a key costs more than the rest of the check; a
 * client sends the same key on every call. The hash is still looked up on every call, so a key
 * deleted from the model is refused at once. Bounded, so arbitrary headers cannot grow it.
 */
const hashOfKey = remembered(hashSecret, 64)
