import * as z from 'zod'
import { hashSecret } from '../base/secrets.ts'
import { formatInstant, formatTimestamp, timestampMs } from '../base/time.ts'
import { type SignInTokenRecord, type UserRecord, userRecordSchema } from '../model/records.ts'
import type { RuleContext } from './context.ts'
import { holdSecret } from './held-secrets.ts'
import { makeRoomForOneMore, sweepExpired } from './sweep.ts'

/**
 * Issues a new sign-in token for `user` at `now` (its organisation's clock's time by default) and
 * stores only its hash. Earlier tokens of the user stay valid, up to `maxTokensPerUser` in all: a
 * token beyond drops the user's oldest, redeemed or not. The organisation's expired records
 * (tokens, web-view sessions) are swept first, so what is kept stays bounded.
 *
 * @example
 * const token = mintSignInToken(ctx, user)
 */
export function mintSignInToken(
  ctx: RuleContext,
  user: UserRecord,
  now = ctx.now(user.orgId),
): string {
  sweepExpired(ctx, user.orgId, now)
  makeRoomForOneMore(ctx.db.signInTokensByUserId.get(user.userId), ctx.maxTokensPerUser, (oldest) =>
    ctx.db.signInTokens.delete(oldest),
  )
  return holdSecret(ctx, ctx.generateToken(), (tokenHash) =>
    ctx.db.signInTokens.create({
      tokenHash,
      userId: user.userId,
      orgId: user.orgId,
      issuedAt: formatInstant(now),
      expiresAt: formatInstant(new Date(now.getTime() + ctx.tokenTtlSeconds * 1000)),
      redeemedAt: null,
    }),
  )
}

/** Why a sign-in token cannot sign in, as the web view tells the app. */
export const redeemFailures = ['unknown', 'wrong-organisation', 'expired', 'already-used'] as const

const redeemFailureSchema = z.enum(redeemFailures)
export type RedeemFailure = z.output<typeof redeemFailureSchema>

/**
 * What opening a sign-in token in the web view may come to: redeemed, or one of its failures.
 *
 * @example redeemOutcomes // ['redeemed', 'unknown', 'wrong-organisation', 'expired', 'already-used']
 */
export const redeemOutcomes = ['redeemed', ...redeemFailures] as const

export type RedeemOutcome = (typeof redeemOutcomes)[number]

/**
 * What redeeming a sign-in token gave: the user it signs in, or why it was refused.
 *
 * @example redeemResultSchema.parse({ ok: false, reason: 'already-used' })
 */
export const redeemResultSchema = z.discriminatedUnion('ok', [
  z.strictObject({ ok: z.literal(true), user: userRecordSchema }),
  z.strictObject({ ok: z.literal(false), reason: redeemFailureSchema }),
])
export type RedeemResult = z.output<typeof redeemResultSchema>

/**
 * What redeeming a sign-in token would give, changing nothing: the answer to a `HEAD` of the web
 * view, and the first half of {@link redeemSignInToken}. `now` is the time of `orgId`'s clock,
 * compared with the expiry to the millisecond.
 *
 * @example
 * checkSignInToken(ctx, 'org-1', token, ctx.now('org-1')) // { ok: true, user, record } or { ok: false, reason }
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
  if (record.orgId !== orgId || !ctx.db.users.get(orgId, user.id)) {
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
  const now = ctx.now(orgId)
  const checked = checkSignInToken(ctx, orgId, token, now)
  if (!checked.ok) return checked
  const { record, user } = checked
  ctx.db.update('signInTokens', record, { redeemedAt: formatTimestamp(now) })
  ctx.db.update('users', user, { lastActive: formatTimestamp(now) })
  return { ok: true, user }
}
