import type { IdentifyUserRequest, IdentifyUserResponse } from '../api/api-schemas.ts'
import { profileOrNull } from '../api/profile-fields.ts'
import { ApiError } from '../base/errors.ts'
import { orgKey } from '../model/indexes.ts'
import { shapeAnswer, takeNewUserCase } from './answer-shapes.ts'
import type { RuleContext } from './context.ts'
import { toUserProfile } from './profile.ts'
import { mintSignInToken } from './sign-in-tokens.ts'
import { formatTimestamp } from './timestamps.ts'

/**
 * Identify, for a request already authenticated as `callerOrgId` and parsed: creates the user on
 * the first call for its `(orgId, id)`, otherwise applies the fields sent (omitted fields keep
 * their value, `userGroups` replaces the list), and issues a new sign-in token. Every check runs
 * before the first write, so a refused request changes nothing: the organisation (403), strict
 * groups and `maxUserGroupsPerOrganisation` (400), `maxUsers` (500, told on standard error).
 *
 * @example
 * const { data, token } = await identifyUser(ctx, 'org-1', { id: 'u-1', orgId: 'org-1' })
 */
export async function identifyUser(
  ctx: RuleContext,
  callerOrgId: string,
  request: IdentifyUserRequest,
): Promise<IdentifyUserResponse> {
  const { id, orgId, data = {} } = request
  if (orgId !== callerOrgId) throw new ApiError('forbidden')

  const userGroups = data.userGroups && [...new Set(data.userGroups)]
  const missingGroups = (userGroups ?? []).filter(
    (groupId) => !ctx.db.userGroups.get(orgKey(orgId, groupId)),
  )
  if (ctx.strictUserGroups && missingGroups.length > 0) throw new ApiError('invalidRequest')
  const groupCount = ctx.db.userGroupsByOrgId.count(orgId) + missingGroups.length
  if (missingGroups.length > 0 && groupCount > ctx.maxUserGroupsPerOrganisation) {
    throw new ApiError('invalidRequest')
  }
  let user = ctx.db.users.get(orgKey(orgId, id))
  if (!user && ctx.db.collections.users.count() >= ctx.maxUsers) {
    ctx.warn(
      `identify refused a new user: the mock holds ${ctx.maxUsers} users, its limit (raise it with maxUsers or --max-users)`,
    )
    throw new ApiError('internal')
  }

  const now = formatTimestamp(ctx.now())
  for (const groupId of missingGroups) {
    await ctx.db.collections.userGroups.create({ orgId, groupId, name: groupId })
  }

  const { userGroups: _, ...fields } = data
  if (user) {
    ctx.db.update('users', user, { ...fields, ...(userGroups && { userGroups }), lastActive: now })
  } else {
    const userId = ctx.generateUserId()
    // The answer shapes decide, once, whether a new user is registered: its record keeps it.
    const registered = (await takeNewUserCase(ctx, orgId, userId))?.forms.newUser !== 'unregistered'
    user = await ctx.db.collections.users.create({
      ...emptyProfile,
      ...fields,
      userGroups: userGroups ?? [],
      userId,
      orgId,
      id,
      registrationStatus: registered ? 'registered' : 'unregistered',
      registeredAt: registered ? now : null,
      lastActive: now,
    })
  }

  const profile = shapeAnswer(ctx, user, toUserProfile(ctx, user))
  const token = await mintSignInToken(ctx, user)
  return { id, data: profile, token }
}

/** A new user's profile before its `data` applies: every field `null`. */
const emptyProfile = profileOrNull({})
