import { orgKey } from '../model/indexes.ts'
import type { SignInTokenRecord, UserRecord } from '../model/records.ts'
import { hashSecret } from '../secrets.ts'
import type { RuleContext } from './context.ts'
import { formatTimestamp, timestampMs } from './timestamps.ts'

/**
 * Issues a new sign-in token for `user` and stores only its hash. Earlier tokens of the user stay
 * valid; tokens already expired are dropped first, so live tokens stay bounded.
 */
export async function mintSignInToken(ctx: RuleContext, user: UserRecord): Promise<string> {
  const now = ctx.now()
  dropExpiredSignInTokens(ctx, now)
  const token = ctx.generateToken()
  // Every field comes from values already valid (the stored user, our own hash and timestamps),
  // so the schema is not run again: one validation less on every identify call.
  await ctx.db.collections.signInTokens.createValidated({
    tokenHash: hashSecret(token),
    userId: user.userId,
    orgId: user.orgId,
    issuedAt: formatTimestamp(now),
    expiresAt: formatTimestamp(new Date(now.getTime() + ctx.tokenTtlSeconds * 1000)),
    redeemedAt: null,
  })
  return token
}

/**
 * Tokens are created in the order they expire (one TTL for all), so the expired ones sit at the
 * front of the collection: dropping them never scans the live ones.
 */
export function dropExpiredSignInTokens(ctx: RuleContext, now: Date): void {
  const tokens = ctx.db.collections.signInTokens
  for (let first = tokens.findFirst(); first; first = tokens.findFirst()) {
    if (timestampMs(first.expiresAt) > now.getTime()) return
    tokens.delete(first)
  }
}

/** Why a sign-in token was refused. */
export type RedeemFailure = 'unknown' | 'wrong-organisation' | 'expired' | 'already-used'

export type RedeemResult = { ok: true; user: UserRecord } | { ok: false; reason: RedeemFailure }

/**
 * What redeeming a sign-in token would give, changing nothing: the answer to a `HEAD` of the web
 * view, and the first half of {@link redeemSignInToken}.
 *
 * @example
 * checkSignInToken(ctx, 'org-1', token, ctx.now()) // { ok: true, user, record } or { ok: false, reason }
 */
export function checkSignInToken(
  ctx: RuleContext,
  orgId: string,
  token: string,
  now: Date,
):
  | { ok: true; user: UserRecord; record: SignInTokenRecord }
  | { ok: false; reason: RedeemFailure } {
  const record = ctx.db.signInTokens.get(hashSecret(token))
  const user = record && ctx.db.usersByUserId.get(record.userId)
  if (!record || !user) return { ok: false, reason: 'unknown' }
  if (record.orgId !== orgId || !ctx.db.users.get(orgKey(orgId, user.id))) {
    return { ok: false, reason: 'wrong-organisation' }
  }
  if (timestampMs(record.expiresAt) <= now.getTime()) return { ok: false, reason: 'expired' }
  if (record.redeemedAt !== null) return { ok: false, reason: 'already-used' }
  return { ok: true, user, record }
}

/**
 * Redeems a sign-in token the way the web view does: it must exist, belong to `orgId`, be
 * unexpired and unused. Success marks it used and sets the user's `lastActive`.
 *
 * @example
 * const result = redeemSignInToken(ctx, 'org-1', token)
 * if (result.ok) console.log(result.user.firstName)
 */
export function redeemSignInToken(ctx: RuleContext, orgId: string, token: string): RedeemResult {
  const now = ctx.now()
  const checked = checkSignInToken(ctx, orgId, token, now)
  if (!checked.ok) return checked
  const { record, user } = checked
  record.redeemedAt = formatTimestamp(now)
  user.lastActive = formatTimestamp(now)
  ctx.db.changed('signInTokens', record)
  ctx.db.changed('users', user)
  return { ok: true, user }
}
