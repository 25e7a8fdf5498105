import { generateSignInToken, hashSecret } from '../base/secrets.ts'
import { formatInstant, timestampMs } from '../base/time.ts'
import type { UserRecord } from '../model/records.ts'
import type { RuleContext } from './context.ts'
import { holdSecret } from './held-secrets.ts'
import { makeRoomForOneMore, sweepExpired } from './sweep.ts'

/**
 * Opens a web-view session for `user`, valid for `sessionTtlSeconds` of its organisation's clock;
 * returns the session id for the cookie (stored hashed). The organisation's expired sessions and
 * tokens are swept first, and the user keeps `maxSessionsPerUser` sessions in all: a session
 * beyond drops the user's oldest.
 *
 * @example
 * const sessionId = openWebViewSession(ctx, user)
 */
export function openWebViewSession(ctx: RuleContext, user: UserRecord): string {
  const now = ctx.now(user.orgId)
  sweepExpired(ctx, user.orgId, now)
  makeRoomForOneMore(
    ctx.db.webViewSessionsByUserId.get(user.userId),
    ctx.maxSessionsPerUser,
    (oldest) => ctx.db.webViewSessions.delete(oldest),
  )
  return holdSecret(ctx, generateSignInToken(), (sessionHash) =>
    ctx.db.webViewSessions.create({
      sessionHash,
      userId: user.userId,
      orgId: user.orgId,
      createdAt: formatInstant(now),
    }),
  )
}

/**
 * The user a live web-view session cookie signs in, for that organisation; `undefined` if none
 * (or expired at the organisation's clock's time). Changes nothing: a `HEAD` may ask.
 *
 * @example
 * const user = findWebViewSession(ctx, 'org-1', sessionId)
 */
export function findWebViewSession(
  ctx: RuleContext,
  orgId: string,
  sessionId: string,
): UserRecord | undefined {
  const session = ctx.db.webViewSessions.get(hashSecret(sessionId))
  if (!session || session.orgId !== orgId) return undefined
  const expiresMs = timestampMs(session.createdAt) + ctx.sessionTtlSeconds * 1000
  if (expiresMs <= ctx.now(orgId).getTime()) return undefined
  return ctx.db.usersByUserId.get(session.userId)
}
