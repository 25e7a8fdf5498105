import type { UserProfile } from '../api/api-schemas.ts'
import type { UserRecord } from '../model/records.ts'
import type { RuleContext } from './context.ts'

/**
 * The profile identify answers with in the `full` shape: every field of the response schema,
 * present, from the stored user and its learning-path assignment, in the schema's order. One
 * object literal, typed as the whole answer: a field added to `userProfileSchema` does not compile
 * until it is given its source here (`test/rules/full-shape-is-the-old-answer.test.ts` holds the
 * order to the schema's). A literal, not an object built field by field: it is made whole in
 * one step with one hidden class for every user, which `JSON.stringify` writes fastest. No copies:
 * `userGroups` is the stored array itself, which no rule changes in place (a change replaces it,
 * see `Database.update`).
 *
 * @example
 * toUserProfile(ctx, user) // { userId, registrationStatus, lastActive, …, learningPathCompletedAt }
 */
export function toUserProfile(ctx: RuleContext, user: UserRecord): Required<UserProfile> {
  const progress = ctx.db.learningProgress.get(user.userId)
  const path = progress && ctx.db.learningPaths.get(user.orgId, progress.learningPathId)
  return {
    userId: user.userId,
    registrationStatus: user.registrationStatus,
    lastActive: user.lastActive,
    registeredAt: user.registeredAt,
    firstName: user.firstName,
    lastName: user.lastName,
    country: user.country,
    region: user.region,
    sex: user.sex,
    ageBracket: user.ageBracket,
    userGroups: user.userGroups,
    learningPathId: progress?.learningPathId ?? null,
    learningPathName: path?.name ?? null,
    learningPathStartDate: progress?.startDate ?? null,
    learningPathDueDate: progress?.dueDate ?? null,
    learningPathCompletedAt: progress?.completedAt ?? null,
  }
}
