import type * as z from 'zod'
import {
  type organisationInputSchema,
  type PutUser,
  putUserSchema,
  userReferenceIssues,
} from '../api/data-file.ts'
import { ApiError, apiErrors, InvalidInput } from '../base/errors.ts'
import { describeIssues, jsonPath } from '../base/issues.ts'
import { publicKeyPrefix, randomText } from '../base/secrets.ts'
import { emptyState, type MockState } from '../model/database.ts'
import { apiKeyRecord, organisationRecordsOf, userRecordsOf } from '../model/declared-data.ts'
import type { RuleContext } from './context.ts'

/** Letters and digits, as an API key's random part is drawn from. */
const alphanumeric = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

/** A new API key: `sk_test_` and 24 letters and digits from the cryptographic random source. */
export const generateApiKey = () => `${publicKeyPrefix}${randomText(alphanumeric, 24)}`

/** A new organisation id: `tenant-` and 12 lowercase letters and digits, drawn at random. */
export const generateOrganisationId = () =>
  `tenant-${randomText('abcdefghijklmnopqrstuvwxyz0123456789', 12)}`

/** A refusal of the control endpoints: 400 `Invalid request parameters`, saying what is wrong. */
function invalid(detail: string): InvalidInput {
  return new InvalidInput(`${apiErrors.invalidRequest.message}: ${detail}`)
}

/** `input` parsed by `schema`; a `TypeError` that names each problem's path otherwise. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input)
  if (!parsed.success) throw invalid(describeIssues(parsed.error.issues, 'body'))
  return parsed.data
}

/**
 * The records organisation `orgId` starts with, created at run time with `parsed` and `apiKey`:
 * `fixtures` (the seed's records of an organisation with that many fixture users) when `parsed`
 * gives a count, then what it declares. Throws a `TypeError` for a `userId` the mock has.
 */
export function startOfOrganisation(
  ctx: RuleContext,
  orgId: string,
  parsed: z.output<typeof organisationInputSchema>,
  apiKey: string,
  fixtures: (users: number) => MockState,
): MockState {
  const start = typeof parsed.users === 'number' ? freshIds(fixtures(parsed.users)) : emptyState()
  const declared = organisationRecordsOf({ ...parsed, orgId })
  start.organisations =
    parsed.name !== undefined || start.organisations.length === 0
      ? declared.organisations
      : start.organisations
  start.userGroups.push(...declared.userGroups)
  start.learningPaths.push(...declared.learningPaths)
  start.organisationShapes = declared.organisationShapes
  start.organisationLatencies = declared.organisationLatencies
  start.clocks = declared.clocks
  start.gateways = declared.gateways
  start.apiKeys = [apiKeyRecord(apiKey, orgId)]
  const pathNames = new Map(start.learningPaths.map((p) => [p.learningPathId, p.name]))
  const users = Array.isArray(parsed.users) ? parsed.users : []
  users.forEach((user, i) => {
    const userId = user.userId ?? ctx.generateUserId()
    if (user.userId !== undefined && ctx.db.usersByUserId.get(userId)) {
      throw invalid(`${jsonPath(['users', i, 'userId'])}: another user has this userId`)
    }
    const records = userRecordsOf(orgId, user, userId, (id) => pathNames.get(id))
    start.users.push(...records.users)
    start.learningProgress.push(...records.learningProgress)
    start.certificates.push(...records.certificates)
  })
  return start
}

/**
 * `state` with a fresh `userId` for each user and a fresh `certificateId` for each certificate:
 * fixture records drawn from the seed, whose ids another organisation may already have.
 */
function freshIds(state: MockState): MockState {
  const userIds = new Map(state.users.map((u) => [u.userId, crypto.randomUUID()]))
  const fresh = (userId: string) => userIds.get(userId) ?? userId
  return {
    ...state,
    users: state.users.map((u) => ({ ...u, userId: fresh(u.userId) })),
    learningProgress: state.learningProgress.map((p) => ({ ...p, userId: fresh(p.userId) })),
    certificates: state.certificates.map((c) => ({
      ...c,
      userId: fresh(c.userId),
      certificateId: `cert-${crypto.randomUUID()}`,
    })),
  }
}

/**
 * Creates or replaces user `id` of organisation `orgId` in the exact state `input` declares (a
 * data-file user without `orgId` and `id`); whether it was created. A replaced user keeps its
 * `userId` unless `input` gives one, and loses its tokens and sessions. 404 `Not found` for an
 * organisation the mock does not have; a `TypeError` (400) for invalid input.
 *
 * @example await putUser(ctx, 'acme', 'ada', { registrationStatus: 'archived' }) // true
 */
export async function putUser(
  ctx: RuleContext,
  orgId: string,
  id: string,
  input: PutUser,
): Promise<boolean> {
  const { db } = ctx
  if (!db.organisations.get(orgId)) throw new ApiError('notFound')
  const user = parseInput(putUserSchema, input)
  const declared = {
    groups: { has: (groupId: string) => db.userGroups.get(orgId, groupId) !== undefined },
    paths: { has: (pathId: string) => db.learningPaths.get(orgId, pathId) !== undefined },
  }
  const issues = userReferenceIssues(
    [{ ...user, id }],
    () => declared,
    () => orgId,
  ).map((issue) => ({ ...issue, path: issue.path.slice(1) }))
  if (issues.length > 0) throw invalid(describeIssues(issues, 'body'))
  const existing = db.users.get(orgId, id)
  const userId = user.userId ?? existing?.userId ?? ctx.generateUserId()
  const owner = db.usersByUserId.get(userId)
  if (owner && owner !== existing) throw invalid('userId: another user has this userId')
  if (!existing && db.collections.users.count() >= ctx.maxUsers) {
    throw invalid(`the mock holds ${ctx.maxUsers} users, its limit (maxUsers, --max-users)`)
  }
  if (existing) {
    db.removeRecordsOf(existing.userId)
    db.collections.users.delete(existing)
  }
  const records = userRecordsOf(
    orgId,
    { ...user, id },
    userId,
    (pathId) => db.learningPaths.get(orgId, pathId)?.name,
  )
  await db.add(records)
  return existing === undefined
}
