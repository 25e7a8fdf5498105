import type { UserProfile } from '../api/api-schemas.ts'
import { profileFieldNames } from '../api/profile-fields.ts'
import type { UserRecord } from '../model/records.ts'
import type { RuleContext } from './context.ts'

/**
 * The profile identify answers with: the stored user and its learning-path assignment, in the
 * order the answer lists them. Built in one object, without copies: `userGroups` is the stored
 * array itself, which no rule changes in place (a change replaces it, see `Database.update`).
 *
 * @example
 * toUserProfile(ctx, user) // { userId, registrationStatus, lastActive, …, learningPathCompletedAt }
 */
export function toUserProfile(ctx: RuleContext, user: UserRecord): Required<UserProfile> {
  const progress = ctx.db.learningProgress.get(user.userId)
  const path = progress && ctx.db.learningPaths.get(user.orgId, progress.learningPathId)
  const profile: Partial<Record<keyof UserProfile, unknown>> = {
    userId: user.userId,
    registrationStatus: user.registrationStatus,
    lastActive: user.lastActive,
    registeredAt: user.registeredAt,
  }
  for (const field of profileFieldNames) profile[field] = user[field]
  profile.userGroups = user.userGroups
  profile.learningPathId = progress?.learningPathId ?? null
  profile.learningPathName = path?.name ?? null
  profile.learningPathStartDate = progress?.startDate ?? null
  profile.learningPathDueDate = progress?.dueDate ?? null
  profile.learningPathCompletedAt = progress?.completedAt ?? null
  return profile as Required<UserProfile>
}
