import type {
  IdentifyUserRequest,
  IdentifyUserResponse,
  UserProfileInput,
} from '../api/api-schemas.ts'
import { profileFieldNames, profileOrNull } from '../api/profile-fields.ts'
import { ApiError } from '../base/errors.ts'
import { formatTimestamp } from '../base/time.ts'
import { sameFieldValue, type UserRecord } from '../model/records.ts'
import { shapeAnswer, takeNewUserCase } from './answer-shapes.ts'
import type { Answered, RuleContext } from './context.ts'
import { toUserProfile } from './profile.ts'
import { mintSignInToken } from './sign-in-tokens.ts'

/**
 * Identify, for a request already authenticated as `callerOrgId` and parsed: creates the user on
 * the first call for its `(orgId, id)`, otherwise applies the fields sent (omitted fields keep
 * their value, `userGroups` replaces the list), and issues a new sign-in token. Every check runs
 * before the first write, so a refused request changes nothing: the organisation (403), strict
 * groups and `maxUserGroupsPerOrganisation` (400), `maxUsers` (500, told on standard error).
 *
 * An identify of a known user that names no new group answers at once; one that creates a record
 * (the user, a group) answers once `@msw/data`'s asynchronous `create` has.
 *
 * @example
 * const { body, shape } = await identifyUser(ctx, 'org-1', { id: 'u-1', orgId: 'org-1' })
 */
export function identifyUser(
  ctx: RuleContext,
  callerOrgId: string,
  request: IdentifyUserRequest,
): Answered<IdentifyUserResponse> | Promise<Answered<IdentifyUserResponse>> {
  const { id, orgId, data } = request
  if (orgId !== callerOrgId) throw new ApiError('forbidden')

  const user = ctx.db.users.get(orgId, id)
  // The groups sent, each once: the very list the user holds when they are its groups already
  // (a client sends the same on every sign-in), so that nothing is copied.
  const sent = data?.userGroups
  const userGroups =
    sent && (user && sameFieldValue(sent, user.userGroups) ? user.userGroups : [...new Set(sent)])
  const missingGroups = userGroups ? missingGroupsOf(ctx, orgId, userGroups) : []
  if (ctx.strictUserGroups && missingGroups.length > 0) throw new ApiError('invalidRequest')
  const groupCount = ctx.db.userGroups.count(orgId) + missingGroups.length
  if (missingGroups.length > 0 && groupCount > ctx.maxUserGroupsPerOrganisation) {
    throw new ApiError('invalidRequest')
  }
  if (!user && ctx.db.collections.users.count() >= ctx.maxUsers) {
    ctx.warn(
      `identify refused a new user: the mock holds ${ctx.maxUsers} users, its limit (raise it with maxUsers or --max-users)`,
    )
    throw new ApiError('internal')
  }

  const at = ctx.now(orgId)
  const now = formatTimestamp(at)
  if (user && missingGroups.length === 0) {
    ctx.db.update('users', user, changesOf(data, userGroups, now))
    return answer(ctx, id, user, at, 'updated')
  }
  return createThenAnswer(ctx, request, user, { userGroups, missingGroups, at, now })
}

/** The rest of {@link identifyUser} when it creates records: the groups it names, and the user. */
async function createThenAnswer(
  ctx: RuleContext,
  { id, orgId, data }: IdentifyUserRequest,
  known: UserRecord | undefined,
  {
    userGroups,
    missingGroups,
    at,
    now,
  }: { userGroups?: string[]; missingGroups: string[]; at: Date; now: string },
): Promise<Answered<IdentifyUserResponse>> {
  for (const groupId of missingGroups) {
    await ctx.db.collections.userGroups.create({ orgId, groupId, name: groupId })
  }
  let user = known
  if (user) ctx.db.update('users', user, changesOf(data, userGroups, now))
  else {
    const userId = ctx.generateUserId()
    // The answer shapes decide, once, whether a new user is registered: its record keeps it.
    const registered = (await takeNewUserCase(ctx, orgId, userId))?.forms.newUser !== 'unregistered'
    user = await ctx.db.collections.users.create({
      ...profileOrNull(data ?? {}),
      userGroups: userGroups ?? [],
      userId,
      orgId,
      id,
      registrationStatus: registered ? 'registered' : 'unregistered',
      registeredAt: registered ? now : null,
      lastActive: now,
    })
  }
  return answer(ctx, id, user, at, known ? 'updated' : 'created')
}

/**
 * Identify's answer for `user` as it now is, with a new sign-in token issued `at` the call's
 * time, and the answer shape it took: where the answer is built.
 */
function answer(
  ctx: RuleContext,
  id: string,
  user: UserRecord,
  at: Date,
  outcome: 'created' | 'updated',
): Answered<IdentifyUserResponse> {
  const { profile, shape } = shapeAnswer(ctx, user, toUserProfile(ctx, user))
  const token = mintSignInToken(ctx, user, at)
  return { body: { id, data: profile, token }, shape, outcome }
}

/** What identify changes of a known user: the profile fields sent, its groups and `lastActive`. */
function changesOf(
  data: UserProfileInput | undefined,
  userGroups: string[] | undefined,
  now: string,
): Partial<UserRecord> {
  const changes: Partial<UserRecord> = {}
  if (data) {
    for (const field of profileFieldNames) {
      const value = data[field]
      if (value !== undefined) (changes as Record<string, unknown>)[field] = value
    }
  }
  if (userGroups) changes.userGroups = userGroups
  changes.lastActive = now
  return changes
}

/** The groups of `userGroups` that organisation `orgId` does not have yet. */
function missingGroupsOf(ctx: RuleContext, orgId: string, userGroups: string[]): string[] {
  const missing: string[] = []
  for (const groupId of userGroups) {
    if (!ctx.db.userGroups.get(orgId, groupId)) missing.push(groupId)
  }
  return missing
}
