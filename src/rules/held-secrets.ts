import { hashSecret } from '../base/secrets.ts'
import type { RuleContext } from './context.ts'

/**
 * Keeps a new secret of a user's (a sign-in token, a web-view session id) as `create` stores it:
 * by its hash only. The journal's redaction learns the secret, so that it never shows in clear.
 *
 * @example
 * const token = holdSecret(ctx, ctx.generateToken(), (tokenHash) => tokens.create({ tokenHash, … }))
 */
export function holdSecret(
  ctx: RuleContext,
  secret: string,
  create: (hash: string) => unknown,
): string {
  const hash = hashSecret(secret)
  create(hash)
  ctx.db.secretFingerprints.add(secret, hash)
  return secret
}
