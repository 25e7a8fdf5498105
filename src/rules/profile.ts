import type { UserProfile } from '../api/api-schemas.ts'
import { profileOf } from '../api/profile-fields.ts'
import { orgKey } from '../model/indexes.ts'
import type { UserRecord } from '../model/records.ts'
import type { RuleContext } from './context.ts'

/** The profile identify answers with: the stored user and its learning-path assignment. */
export function toUserProfile(ctx: RuleContext, user: UserRecord): Required<UserProfile> {
  const progress = ctx.db.learningProgress.get(user.userId)
  const path = progress && ctx.db.learningPaths.get(orgKey(user.orgId, progress.learningPathId))
  return {
    userId: user.userId,
    registrationStatus: user.registrationStatus,
    lastActive: user.lastActive,
    registeredAt: user.registeredAt,
    ...profileOf(user),
    userGroups: [...user.userGroups],
    learningPathId: progress?.learningPathId ?? null,
    learningPathName: path?.name ?? null,
    learningPathStartDate: progress?.startDate ?? null,
    learningPathDueDate: progress?.dueDate ?? null,
    learningPathCompletedAt: progress?.completedAt ?? null,
  }
}
