import type { JsonValue } from '../journaled-body.ts'
import { hashSecret } from '../secrets.ts'
import type { RuleContext } from './context.ts'

/** What the journal keeps in place of a secret a request carried in its body. */
export const redacted = '[redacted]'

/**
 * `value` with every string (and every object key) that is an API key, a sign-in token or a
 * web-view session id the mock holds replaced by {@link redacted}: for the journal, which must
 * never hold a secret even when a client sends one where a body field goes. Costs one hash per
 * string; the journal only keeps bodies of at most 16 KiB.
 *
 * @example redactSecrets(ctx, { id: 'sk_test_…', orgId: 'org-1' }) // { id: '[redacted]', orgId: 'org-1' }
 */
export function redactSecrets(ctx: RuleContext, value: JsonValue): JsonValue {
  const { db } = ctx
  const isSecret = (text: string) => {
    const hash = hashSecret(text)
    return (
      db.apiKeys.get(hash) !== undefined ||
      db.signInTokens.get(hash) !== undefined ||
      db.webViewSessions.get(hash) !== undefined
    )
  }
  const walk = (node: JsonValue): JsonValue => {
    if (typeof node === 'string') return isSecret(node) ? redacted : node
    if (Array.isArray(node)) return node.map(walk)
    if (node === null || typeof node !== 'object') return node
    return Object.fromEntries(
      Object.entries(node).map(([key, field]) => [isSecret(key) ? redacted : key, walk(field)]),
    )
  }
  return walk(value)
}
