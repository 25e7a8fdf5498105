import type { RuleContext } from './context.ts'

/**
 * Drops the sign-in tokens and web-view sessions of organisation `orgId` expired at `now` (its
 * clock's time; a token within the second after its expiry, as `signInTokensByExpiry` orders them,
 * while its redemption is refused from the millisecond), earliest first: each organisation's are
 * kept in time order beside their insertion order, so a sweep looks only at records it drops and
 * one more, and one long-lived record never holds it back. Another organisation's clock may read
 * another time: its records wait for its own calls.
 *
 * @example
 * sweepExpired(ctx, 'org-1', ctx.now('org-1'))
 */
export function sweepExpired(ctx: RuleContext, orgId: string, now: Date): void {
  const { db } = ctx
  const nowMs = now.getTime()
  for (let first = db.signInTokensByExpiry.first(orgId); first && first.ms <= nowMs; ) {
    db.signInTokens.delete(first.record)
    first = db.signInTokensByExpiry.first(orgId)
  }
  const startedBefore = nowMs - ctx.sessionTtlSeconds * 1000
  for (let first = db.webViewSessionsByStart.first(orgId); first && first.ms <= startedBefore; ) {
    db.webViewSessions.delete(first.record)
    first = db.webViewSessionsByStart.first(orgId)
  }
}

/**
 * Deletes the oldest of a user's `records` (oldest first) so that one more fits within `max`:
 * the bound of sign-in tokens and of web-view sessions per user.
 *
 * @example
 * makeRoomForOneMore(tokens, ctx.maxTokensPerUser, (token) => ctx.db.signInTokens.delete(token))
 */
export function makeRoomForOneMore<R>(
  records: readonly R[],
  max: number,
  remove: (record: R) => void,
): void {
  // The records to go are read before any goes: `remove` may shorten `records` itself. The one
  // of a call at the bound (every identify of a busy user) costs no copy.
  const over = records.length - max + 1
  if (over === 1) remove(records[0] as R)
  else if (over > 1) for (const record of records.slice(0, over)) remove(record)
}
