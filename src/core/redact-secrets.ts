import { isNestedDeeperThan, maxJsonDepth } from '../json-depth.ts'
import type { RuleContext } from '../rules/context.ts'
import { hashSecret, visibleAscii } from '../secrets.ts'
import type { CallRequest } from './journal.ts'
import type { JsonValue } from './journaled-body.ts'
import { decodeSegment } from './route-matcher.ts'

/** What the journal keeps in place of a secret a request carried in its body or its path. */
export const redacted = '[redacted]'

/** What separates a secret from the text around it: `Bearer sk_…`, `key=sk_…`, `"sk_…"`. */
const pieceSeparators = /[\s"'`,;:=&|()<>[\]{}/\\?#+]+/

/**
 * The lengths of a piece worth hashing: the seeded keys have 32 characters, tokens and sessions
 * 64. A shorter or longer key is still redacted where a string of a refused call is exactly it.
 */
const plausiblePiece = { min: 8, max: 512 }

/**
 * `value` with every string (and every object key) that is, or holds among its words, an API key,
 * a sign-in token or a web-view session id the mock holds replaced by {@link redacted}; `null` when
 * it nests deeper than {@link maxJsonDepth}: for the journal, which must never hold a secret even
 * when a client sends one where a body field goes. Costs one hash per string and one per word of 8
 * to 512 characters; the journal only keeps bodies of at most 16 KiB. For a call `answered` (the
 * hot path), strings shorter than 8 characters and object keys (field names the schema accepted)
 * are not hashed.
 *
 * @example redactSecrets(ctx, { id: 'Bearer sk_test_…', orgId: 'org-1' }) // { id: '[redacted]', orgId: 'org-1' }
 */
function redactSecrets(ctx: RuleContext, value: JsonValue, answered = false): JsonValue {
  const walk = (node: JsonValue): JsonValue => {
    if (typeof node === 'string') return redactText(ctx, node, answered)
    if (Array.isArray(node)) return node.map(walk)
    if (node === null || typeof node !== 'object') return node
    return Object.fromEntries(
      Object.entries(node).map(([key, field]) => [
        answered ? key : redactText(ctx, key),
        walk(field),
      ]),
    )
  }
  // An answered body passed the request schema, closed at every level: it cannot nest deep, so
  // only a refused one is measured first.
  return !answered && isNestedDeeperThan(value, maxJsonDepth) ? null : walk(value)
}

/**
 * What the journal keeps of a call's request: {@link redactSecrets} of identify's body, delete's
 * `orgId` and `id` redacted like a refused body's strings; `call` itself when nothing was redacted.
 *
 * @example redactCall(ctx, { operation: 'delete', request: { orgId: 'org-1', id: token } }, false)
 * // { operation: 'delete', request: { orgId: 'org-1', id: '[redacted]' } }
 */
export function redactCall(ctx: RuleContext, call: CallRequest, answered: boolean): CallRequest {
  if (call.operation === 'identify') {
    return { ...call, request: redactSecrets(ctx, call.request, answered) }
  }
  // Two strings: hashed whatever their length, answered or not.
  const { orgId, id } = call.request
  const shown = { orgId: redactText(ctx, orgId), id: redactText(ctx, id) }
  return shown.orgId === orgId && shown.id === id ? call : { ...call, request: shown }
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
 * replaced by {@link redacted}. Costs a hash per segment: for a path whose parameters were secrets,
 * or one no route has.
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

function holdsSecret(ctx: RuleContext, text: string, answered = false): boolean {
  const plausible = text.length >= plausiblePiece.min && text.length <= plausiblePiece.max
  if ((plausible || !answered) && isSecret(ctx, text)) return true
  if (text.length <= plausiblePiece.min) return false
  return text
    .split(pieceSeparators)
    .some(
      (piece) =>
        piece.length >= plausiblePiece.min &&
        piece.length <= plausiblePiece.max &&
        piece.length < text.length &&
        isSecret(ctx, piece),
    )
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
