import type { RuleContext } from './context.ts'

/**
 * Drops the sign-in tokens and web-view sessions expired at `now`, earliest first: each
 * collection is kept in time order beside its insertion order, so a sweep looks only at records
 * it drops and one more, and one long-lived record never holds it back.
 *
 * @example
 * sweepExpired(ctx, ctx.now())
 */
export function sweepExpired(ctx: RuleContext, now: Date): void {
  const { db } = ctx
  const nowMs = now.getTime()
  for (let first = db.signInTokensByExpiry.first(); first && first.ms <= nowMs; ) {
    db.signInTokens.delete(first.record)
    first = db.signInTokensByExpiry.first()
  }
  const startedBefore = nowMs - ctx.sessionTtlSeconds * 1000
  for (let first = db.webViewSessionsByStart.first(); first && first.ms <= startedBefore; ) {
    db.webViewSessions.delete(first.record)
    first = db.webViewSessionsByStart.first()
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
