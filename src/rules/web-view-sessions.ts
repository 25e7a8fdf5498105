import type { UserRecord } from '../model/records.ts'
import { generateSignInToken, hashSecret } from '../secrets.ts'
import type { RuleContext } from './context.ts'
import { formatTimestamp } from './timestamps.ts'

/** Opens a web-view session for `user`; returns the session id for the cookie (stored hashed). */
export async function openWebViewSession(ctx: RuleContext, user: UserRecord): Promise<string> {
  const sessionId = generateSignInToken()
  await ctx.db.collections.webViewSessions.create({
    sessionHash: hashSecret(sessionId),
    userId: user.userId,
    orgId: user.orgId,
    createdAt: formatTimestamp(ctx.now()),
  })
  return sessionId
}

/** The user a web-view session cookie signs in, for that organisation; `undefined` if none. */
export function findWebViewSession(
  ctx: RuleContext,
  orgId: string,
  sessionId: string,
): UserRecord | undefined {
  const session = ctx.db.webViewSessions.get(hashSecret(sessionId))
  if (!session || session.orgId !== orgId) return undefined
  return ctx.db.usersByUserId.get(session.userId)
}
