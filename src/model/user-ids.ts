import { collectionNames } from './collections.ts'
import type { MockState } from './mock-state.ts'

/**
 * `state` with a new `userId` (from `generate`) for each of its users whose `userId` `held`
 * (the mock's users by `userId`) has, in every record of that user: what keeps a `userId`
 * unique when an organisation's records come back (a reset of one organisation), since another
 * user may have been given that `userId` while it was free. `state` itself is left as it is.
 *
 * @example
 * const start = withUserIdsFree(slice, db.usersByUserId, () => crypto.randomUUID())
 */
export function withUserIdsFree(
  state: MockState,
  held: { get(userId: string): unknown },
  generate: () => string,
): MockState {
  const renamed = new Map<string, string>()
  for (const { userId } of state.users) {
    if (held.get(userId) !== undefined) renamed.set(userId, generate())
  }
  if (renamed.size === 0) return state
  const copy = { ...state }
  for (const name of collectionNames) {
    ;(copy[name] as object[]) = (state[name] as Record<string, unknown>[]).map((record) => {
      const fresh = typeof record.userId === 'string' ? renamed.get(record.userId) : undefined
      return fresh === undefined ? record : { ...record, userId: fresh }
    })
  }
  return copy
}
