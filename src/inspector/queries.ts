import * as z from 'zod'
import { userProfileSchema } from '../api/api-schemas.ts'
import { ApiError } from '../base/errors.ts'
import { shapeAnswer } from '../rules/answer-shapes.ts'
import type { RuleContext } from '../rules/context.ts'
import { toUserProfile } from '../rules/profile.ts'

/** The most users one page of the inspector's list holds. */
export const maxUsersPerPage = 100

/** The most tokens, sessions or certificates one user's details list (the newest). */
const maxRecordsPerUser = 100

/** `GET /__mock/users`: one organisation's users, searched and paged. */
export const userListQuerySchema = z.strictObject({
  orgId: z.string().min(1).max(1024),
  q: z.string().max(200).default(''),
  offset: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0),
  limit: z.coerce.number().int().min(1).max(maxUsersPerPage).default(25),
})

/** `GET /__mock/user` and `DELETE /__mock/user`: one user, by its organisation and `id`. */
export const userQuerySchema = z.strictObject({
  orgId: z.string().min(1).max(1024),
  id: z.string().min(1).max(1024),
})

export type UserListQuery = z.output<typeof userListQuerySchema>

/** A user as the inspector's list shows it. */
const userSummarySchema = z.strictObject({
  id: z.string(),
  userId: z.string(),
  name: z.string(),
  registrationStatus: z.string(),
  learningPath: z.string().nullable(),
  userGroups: z.array(z.string()),
  lastActive: z.string().nullable(),
})

export type UserSummary = z.output<typeof userSummarySchema>

/**
 * One page of an organisation's users: what `GET /__mock/users` answers.
 *
 * @example userListSchema.parse({ total: 0, users: [] })
 */
export const userListSchema = z.strictObject({
  total: z.int().describe('how many users match in all'),
  users: z.array(userSummarySchema),
})

const newestFirst = <S extends z.ZodType>(item: S, what: string) =>
  z.array(item).describe(`the newest ${maxRecordsPerUser} ${what}, newest first`)

/**
 * Everything the mock holds about one user: what `GET /__mock/user` answers (and `PUT
 * /__mock/organisations/{orgId}/users/{id}`).
 *
 * @example userDetailsSchema.shape.tokens
 */
export const userDetailsSchema = z.strictObject({
  id: z.string(),
  orgId: z.string(),
  profile: userProfileSchema.describe('in the answer shape its identify answers take'),
  shape: z.string().describe('that answer shape: full or a case'),
  progress: z
    .strictObject({
      learningPathId: z.string(),
      name: z.string().nullable(),
      startDate: z.string(),
      dueDate: z.string().nullable(),
      completedAt: z.string().nullable(),
      percentComplete: z.number(),
    })
    .nullable(),
  certificates: newestFirst(
    z.strictObject({
      certificateId: z.string(),
      learningPathId: z.string(),
      title: z.string(),
      issuedAt: z.string(),
    }),
    'certificates',
  ),
  certificateCount: z.int(),
  tokens: newestFirst(
    z.strictObject({
      issuedAt: z.string(),
      expiresAt: z.string(),
      redeemedAt: z.string().nullable(),
    }),
    'sign-in tokens (never the token nor its hash)',
  ),
  tokenCount: z.int(),
  sessions: newestFirst(z.strictObject({ createdAt: z.string() }), 'web-view sessions'),
  sessionCount: z.int(),
})

export type UserDetails = z.output<typeof userDetailsSchema>

/**
 * One page of an organisation's users, newest first, whose `id`, `userId` or name contains `q`
 * (any case), with how many match in all.
 *
 * @example
 * listUsers(ctx, { orgId: 'org-1', q: 'ada', offset: 0, limit: 25 }) // { total: 1, users: [...] }
 */
export function listUsers(
  ctx: RuleContext,
  query: UserListQuery,
): { total: number; users: UserSummary[] } {
  const needle = query.q.toLowerCase()
  const all = ctx.db.collections.users.all()
  const users: UserSummary[] = []
  let total = 0
  for (let i = all.length - 1; i >= 0; i--) {
    const user = all[i]
    if (!user || user.orgId !== query.orgId) continue
    if (needle && !`${user.id}\n${user.userId}\n${nameOf(user)}`.toLowerCase().includes(needle)) {
      continue
    }
    total++
    if (total <= query.offset || users.length >= query.limit) continue
    const profile = toUserProfile(ctx, user)
    users.push({
      id: user.id,
      userId: user.userId,
      name: nameOf(user),
      registrationStatus: user.registrationStatus,
      learningPath: profile.learningPathName ?? profile.learningPathId,
      userGroups: [...user.userGroups],
      lastActive: user.lastActive,
    })
  }
  return { total, users }
}

/**
 * Everything the mock holds about one user: its profile (in the answer shape its identify answers
 * take, named by `shape`), learning-path progress, certificates,
 * sign-in tokens (when issued, expiring, redeemed: never the token nor its hash) and web-view
 * sessions. 404 `User not found` when there is no such user.
 *
 * @example
 * describeUser(ctx, { orgId: 'org-1', id: 'user-1' }).tokens // [{ issuedAt, expiresAt, redeemedAt }]
 */
export function describeUser(ctx: RuleContext, query: { orgId: string; id: string }): UserDetails {
  const { db } = ctx
  const user = db.users.get(query.orgId, query.id)
  if (!user) throw new ApiError('userNotFound')
  const progress = db.learningProgress.get(user.userId)
  const tokens = db.signInTokensByUserId.get(user.userId)
  const sessions = db.webViewSessionsByUserId.get(user.userId)
  const certificates = db.certificates.get(user.userId)
  return {
    id: user.id,
    orgId: user.orgId,
    // In the forms its identify answers take, as the user's client sees it.
    ...shapeAnswer(ctx, user, toUserProfile(ctx, user)),
    progress: progress
      ? {
          learningPathId: progress.learningPathId,
          name: db.learningPaths.get(user.orgId, progress.learningPathId)?.name ?? null,
          startDate: progress.startDate,
          dueDate: progress.dueDate,
          completedAt: progress.completedAt,
          percentComplete: progress.percentComplete,
        }
      : null,
    certificates: newest(certificates).map(
      ({ certificateId, learningPathId, title, issuedAt }) => ({
        certificateId,
        learningPathId,
        title,
        issuedAt,
      }),
    ),
    certificateCount: certificates.length,
    tokens: newest(tokens).map(({ issuedAt, expiresAt, redeemedAt }) => ({
      issuedAt,
      expiresAt,
      redeemedAt,
    })),
    tokenCount: tokens.length,
    sessions: newest(sessions).map(({ createdAt }) => ({ createdAt })),
    sessionCount: sessions.length,
  }
}

function nameOf(user: { firstName: string | null; lastName: string | null }): string {
  return [user.firstName, user.lastName].filter(Boolean).join(' ')
}

function newest<R>(records: R[]): R[] {
  return records.slice(-maxRecordsPerUser).reverse()
}
