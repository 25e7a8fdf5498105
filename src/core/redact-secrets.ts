import { isNestedDeeperThan, maxJsonDepth } from '../base/json-depth.ts'
import { hashSecret, minBareKeyLength, publicKeyPrefix, visibleAscii } from '../base/secrets.ts'
import type { RuleContext } from '../rules/context.ts'
import type { CallRequest } from './journal.ts'
import type { JsonValue } from './journaled-body.ts'
import { decodeSegment } from './route-matcher.ts'

/** What the journal keeps in place of a secret a request carried in its body or its path. */
export const redacted = '[redacted]'

/**
 * `value` with every string (and every object key) that is or holds an API key, a sign-in token or
 * a web-view session id the mock holds replaced by {@link redacted}; `null` when it nests deeper
 * than {@link maxJsonDepth}: for the journal, which must never hold a secret even when a client
 * sends one where a body field goes. See {@link holdsSecret} for the cost. For a call `answered`
 * (the hot path), object keys (field names the schema accepted) are not looked at.
 *
 * @example redactSecrets(ctx, { id: 'u-sk_test_….x', orgId: 'org-1' }) // { id: '[redacted]', orgId: 'org-1' }
 */
function redactSecrets(ctx: RuleContext, value: JsonValue, answered = false): JsonValue {
  // Each node comes back as it was when nothing in it was redacted: no copy, nor any array or
  // object built to compare, on the hot path; a copy is made only from the first change on.
  const walk = (node: JsonValue): JsonValue => {
    if (typeof node === 'string') return redactText(ctx, node, answered)
    if (node === null || typeof node !== 'object') return node
    if (Array.isArray(node)) {
      let shown: JsonValue[] | undefined
      for (let i = 0; i < node.length; i++) {
        const item = node[i] as JsonValue
        const seen = walk(item)
        if (seen !== item) shown ??= node.slice(0, i)
        shown?.push(seen)
      }
      return shown ?? node
    }
    let shown: [string, JsonValue][] | undefined
    let i = 0
    for (const key in node) {
      const field = node[key] as JsonValue
      const name = answered ? key : redactText(ctx, key)
      const seen = walk(field)
      if (shown === undefined && (name !== key || seen !== field)) {
        shown = Object.entries(node).slice(0, i)
      }
      shown?.push([name, seen])
      i++
    }
    return shown ? Object.fromEntries(shown) : node
  }
  // An answered body passed the request schema, closed at every level: it cannot nest deep, so
  // only a refused one is measured first.
  return !answered && isNestedDeeperThan(value, maxJsonDepth) ? null : walk(value)
}

/**
 * What the journal keeps of a call's request: {@link redactSecrets} of what it asked, its JSON
 * body or its path parameters alike (whatever the route: no case per operation); `call` itself
 * when nothing was redacted.
 *
 * @example redactCall(ctx, { operation: 'delete', request: { orgId: 'org-1', id: token } }, false)
 * // { operation: 'delete', request: { orgId: 'org-1', id: '[redacted]' } }
 */
export function redactCall(ctx: RuleContext, call: CallRequest, answered: boolean): CallRequest {
  // Path parameters are an object of strings: a JSON value, redacted as a body's strings are.
  const asked = call.request as JsonValue
  const request = redactSecrets(ctx, asked, answered)
  return request === asked ? call : ({ ...call, request } as CallRequest)
}

/**
 * `text`, or {@link redacted} when it is or holds a secret the mock holds (see
 * {@link redactSecrets}).
 *
 * @example redactText(ctx, `Bearer ${key}`) // '[redacted]'
 */
function redactText(ctx: RuleContext, text: string, answered = false): string {
  return holdsSecret(ctx, text, answered) ? redacted : text
}

/**
 * `pathname` (still percent-encoded) with every segment that is or holds a secret the mock holds
 * replaced by {@link redacted}: for a path whose parameters were secrets, or one no route has.
 *
 * @example redactPath(ctx, `/api/v1/users/org-1/${token}`) // '/api/v1/users/org-1/[redacted]'
 */
export function redactPath(ctx: RuleContext, pathname: string): string {
  return pathname
    .split('/')
    .map((segment) => {
      const plain = decodeSegment(segment) ?? segment
      const secret = holdsSecret(ctx, segment) || (plain !== segment && holdsSecret(ctx, plain))
      return segment !== '' && secret ? redacted : segment
    })
    .join('/')
}

/**
 * Whether `text` is or holds a secret the mock holds. Any piece of it, whatever surrounds it
 * (`u-sk_test_….x`), is found by the secrets' rolling fingerprints (`SecretFingerprints`): one
 * pass per distinct length of the secrets held, a SHA-256 only for a piece whose fingerprint
 * matches, nothing for text shorter than every secret. A secret the mock holds only as a hash and
 * has not seen in clear since it started (kept by a state file) is found in the forms the mock
 * generates secrets in (`findUnseen`); a call not `answered` also hashes `text` whole, for one of
 * any other form (a state file's key no longer given, not used since). An API key is found without
 * its public prefix too (`u-0123…` for `sk_test_0123…`): a client may copy its secret part alone.
 */
function holdsSecret(ctx: RuleContext, text: string, answered = false): boolean {
  const { secretFingerprints } = ctx.db
  if (
    secretFingerprints.find(text, (piece) => isSecret(ctx, piece) || isBareKey(ctx, piece)) ||
    secretFingerprints.findUnseen(text, (piece) => isSecret(ctx, piece))
  ) {
    return true
  }
  return !answered && (isSecret(ctx, text) || isBareKey(ctx, text))
}

/** Whether `text` is the secret part of an API key the mock holds, its public prefix left out. */
function isBareKey(ctx: RuleContext, text: string): boolean {
  return text.length >= minBareKeyLength && isSecret(ctx, publicKeyPrefix + text)
}

/** What a key, a token or a session id is made of: visible ASCII only (see `headerSecretSchema`). */
function isSecret({ db }: RuleContext, text: string): boolean {
  if (!visibleAscii.test(text)) return false
  const hash = hashSecret(text)
  return (
    db.apiKeys.get(hash) !== undefined ||
    db.signInTokens.get(hash) !== undefined ||
    db.webViewSessions.get(hash) !== undefined
  )
}
