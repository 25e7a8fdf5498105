import * as z from 'zod'
import type { Issue } from '../base/issues.ts'
import { headerSecretSchema } from '../base/secrets.ts'
import {
  dateSchema,
  dateTimeSchema,
  identifyUserRequestSchema,
  registrationStatusSchema,
  userProfileInputSchema,
} from './api-schemas.ts'
import { clockStartSchema } from './clock-schemas.ts'
import { gatewaySettingSchema } from './gateway.ts'
import { latencySchema } from './latency.ts'
import { shapesSchema } from './shape-cases.ts'
import {
  maxSnapshotsPerOrganisation,
  snapshotNameSchema,
  snapshotSourceSchema,
} from './snapshot-schemas.ts'

// The data file of `serve --data` and `createMockApi({ data })`: organisations and users in exact
// states. Its fields are those of identify's input and of the stored records, read from their
// schemas, so that a value the file may hold is one the API could have produced.

const { id: idSchema, orgId: orgIdSchema } = identifyUserRequestSchema.shape
const profileShape = userProfileInputSchema.shape
/** A group or learning-path id: what identify's `userGroups` hold. */
const itemIdSchema = profileShape.userGroups.unwrap().element
/** A display name or title: as long as identify's text fields at most. */
const textSchema = profileShape.firstName.unwrap()

/** How far a user has gone along a learning path, in percent. */
export const percentCompleteSchema = z.int().min(0).max(100)

/** The most of each list a data file (or a created organisation) may hold. */
const dataFileLimits = {
  apiKeys: 100,
  userGroups: 10_000,
  learningPaths: 1_000,
  certificates: 100,
  users: 200_000,
  organisations: 1_000,
} as const

/**
 * An organisation's own records, as a data file and `POST /__mock/organisations` declare them:
 * its user groups and learning paths, and its own answer shapes, latency, clock and gateway.
 */
const organisationContentsShape = {
  name: textSchema.optional(),
  shapes: shapesSchema.optional(),
  latency: latencySchema.optional(),
  clock: clockStartSchema.optional(),
  gateway: gatewaySettingSchema.optional(),
  userGroups: z
    .array(z.strictObject({ groupId: itemIdSchema, name: textSchema.optional() }))
    .max(dataFileLimits.userGroups)
    .optional(),
  learningPaths: z
    .array(z.strictObject({ learningPathId: itemIdSchema, name: textSchema }))
    .max(dataFileLimits.learningPaths)
    .optional(),
}

/**
 * A user in an exact state: omitted fields are `null` (`registeredAt` too), `userGroups` `[]`,
 * `percentComplete` 100 once `completedAt` is set and 0 before.
 *
 * @example
 * dataFileUserSchema.parse({ orgId: 'acme', id: 'ada', registrationStatus: 'archived' })
 */
const dataFileUserSchema = z.strictObject({
  orgId: orgIdSchema,
  id: idSchema,
  userId: idSchema.optional(),
  registrationStatus: registrationStatusSchema,
  registeredAt: dateTimeSchema.optional(),
  lastActive: dateTimeSchema.optional(),
  ...profileShape,
  learningPath: z
    .strictObject({
      learningPathId: itemIdSchema,
      startDate: dateSchema,
      dueDate: dateSchema.optional(),
      completedAt: dateTimeSchema.optional(),
      percentComplete: percentCompleteSchema.optional(),
    })
    .optional(),
  certificates: z
    .array(
      z.strictObject({
        learningPathId: itemIdSchema,
        title: textSchema.optional(),
        issuedAt: dateTimeSchema,
      }),
    )
    .max(dataFileLimits.certificates)
    .optional(),
})

/** A user of an organisation named elsewhere (`POST /__mock/organisations`'s `users`). */
const organisationUserSchema = dataFileUserSchema.omit({ orgId: true })

/**
 * A snapshot a data file declares of its organisation: its users in exact states (as a created
 * organisation's) and its settings (answer shapes, latency, clock); its groups and learning paths
 * are the organisation's.
 *
 * @example declaredSnapshotSchema.parse({ users: [{ id: 'ada', registrationStatus: 'archived' }], clock: { frozenAt: '2030-01-01T00:00:00Z' } })
 */
const declaredSnapshotSchema = z.strictObject({
  users: z.array(organisationUserSchema).max(dataFileLimits.users).optional(),
  shapes: organisationContentsShape.shapes,
  latency: organisationContentsShape.latency,
  clock: organisationContentsShape.clock,
})

/**
 * An organisation of a data file, its API keys in clear.
 *
 * @example dataFileOrganisationSchema.parse({ orgId: 'acme', apiKeys: ['sk_test_acme'] })
 */
const dataFileOrganisationSchema = z.strictObject({
  orgId: orgIdSchema,
  apiKeys: z.array(headerSecretSchema).max(dataFileLimits.apiKeys),
  ...organisationContentsShape,
  snapshots: z
    .record(z.string(), declaredSnapshotSchema)
    .superRefine((snapshots, context) => {
      const names = Object.keys(snapshots)
      if (names.length > maxSnapshotsPerOrganisation) {
        const message = `at most ${maxSnapshotsPerOrganisation} snapshots per organisation`
        context.addIssue({ code: 'custom', message })
      }
      for (const name of names) {
        const checked = snapshotNameSchema.safeParse(name)
        if (!checked.success) {
          const message = checked.error.issues[0]?.message ?? 'not a snapshot name'
          context.addIssue({ code: 'custom', path: [name], message })
        }
      }
    })
    .optional()
    .describe('named states a restore or a fork starts from, each its users and settings'),
})

/** A user put at its path (`PUT /__mock/organisations/{orgId}/users/{id}`). */
export const putUserSchema = dataFileUserSchema.omit({ orgId: true, id: true })

/** The most users `POST /__mock/organisations` creates an organisation with. */
const maxUsersOfCreated = 10_000

/**
 * What `POST /__mock/organisations` and `api.organisations.create()` take: an `orgId` (one is
 * generated when absent), a name, its user groups and learning paths, and its users: a count of
 * fixture users (with the seed's groups and paths), or users in exact states, as in a data file.
 *
 * @example organisationInputSchema.parse({ users: [{ id: 'ada', registrationStatus: 'archived' }] })
 */
export const organisationInputSchema = z
  .strictObject({
    orgId: orgIdSchema.optional(),
    ...organisationContentsShape,
    users: z
      .union([
        z.int().min(0).max(maxUsersOfCreated),
        z.array(organisationUserSchema).max(maxUsersOfCreated),
      ])
      .optional(),
    from: snapshotSourceSchema
      .optional()
      .describe(
        "a fork: the state of that organisation's snapshot, with an id and a key of its own",
      ),
  })
  .superRefine((org, context) => {
    if (org.from !== undefined) {
      const others = Object.keys(org).filter((key) => !['from', 'orgId', 'name'].includes(key))
      for (const key of others) {
        context.addIssue({
          code: 'custom',
          path: [key],
          message: 'a fork takes its state from the snapshot: only orgId and name go with from',
        })
      }
    }
    const users = Array.isArray(org.users) ? org.users : []
    const declared = declaredBy(org)
    const issues = [
      ...organisationIssues(org),
      ...userReferenceIssues(
        users,
        () => declared,
        () => '',
      ).map(under('users')),
    ]
    for (const { path, message } of issues)
      context.addIssue({ code: 'custom', path: [...path], message })
  })

export type OrganisationInput = z.input<typeof organisationInputSchema>

export type DataFileOrganisation = z.output<typeof dataFileOrganisationSchema>
export type DataFileUser = z.output<typeof dataFileUserSchema>
export type OrganisationUser = z.output<typeof organisationUserSchema>
export type PutUser = z.output<typeof putUserSchema>

/** The ids an organisation declares, of its groups or its learning paths. */
type IdSet = { has(id: string): boolean }

/** What of a user refers to its organisation's declarations or must be unique. */
type ReferringUser = Pick<
  DataFileUser,
  'id' | 'userId' | 'userGroups' | 'learningPath' | 'certificates'
>

/**
 * The problems of users that refer to what their organisation does not declare, or repeat an id:
 * each group and learning path a user names must be one of `groups` and `paths` of its
 * organisation, and ids are unique per organisation (`userId`s in the whole list).
 */
export function userReferenceIssues(
  users: readonly ReferringUser[],
  declared: (index: number) => { groups: IdSet; paths: IdSet } | null,
  scopeOf: (index: number) => string,
): Issue[] {
  const issues: Issue[] = []
  const ids = new Set<string>()
  const userIds = new Set<string>()
  users.forEach((user, i) => {
    const at = (...path: PropertyKey[]) => [i, ...path]
    const key = JSON.stringify([scopeOf(i), user.id])
    if (ids.has(key))
      issues.push({ path: at('id'), message: 'another user of the organisation has this id' })
    ids.add(key)
    if (user.userId !== undefined) {
      if (userIds.has(user.userId))
        issues.push({ path: at('userId'), message: 'another user has this userId' })
      userIds.add(user.userId)
    }
    const org = declared(i)
    if (!org) return
    user.userGroups?.forEach((groupId, j) => {
      if (!org.groups.has(groupId))
        issues.push({
          path: at('userGroups', j),
          message: `the organisation declares no user group ${groupId}`,
        })
    })
    const pathIssue = (learningPathId: string, ...path: PropertyKey[]) => {
      if (!org.paths.has(learningPathId))
        issues.push({
          path: at(...path, 'learningPathId'),
          message: `the organisation declares no learning path ${learningPathId}`,
        })
    }
    if (user.learningPath) pathIssue(user.learningPath.learningPathId, 'learningPath')
    user.certificates?.forEach((c, j) => {
      pathIssue(c.learningPathId, 'certificates', j)
    })
  })
  return issues
}

/** What an organisation declares, by the ids of its groups and learning paths. */
function declaredBy(org: {
  userGroups?: readonly { groupId: string }[] | undefined
  learningPaths?: readonly { learningPathId: string }[] | undefined
}): { groups: Set<string>; paths: Set<string> } {
  return {
    groups: new Set(org.userGroups?.map((g) => g.groupId)),
    paths: new Set(org.learningPaths?.map((p) => p.learningPathId)),
  }
}

/** The issues of ids repeated within `items`, at `items[i].field`. */
function repeatedIds<T>(items: readonly T[] | undefined, idOf: (item: T) => string, field: string) {
  const seen = new Set<string>()
  const issues: Issue[] = []
  items?.forEach((item, i) => {
    const id = idOf(item)
    if (seen.has(id)) issues.push({ path: [i, field], message: `${field} ${id} is declared twice` })
    seen.add(id)
  })
  return issues
}

/** The issues of an organisation's own declarations: ids of groups and paths unique. */
function organisationIssues(org: z.output<z.ZodObject<typeof organisationContentsShape>>) {
  return [
    ...repeatedIds(org.userGroups, (g) => g.groupId, 'groupId').map(under('userGroups')),
    ...repeatedIds(org.learningPaths, (p) => p.learningPathId, 'learningPathId').map(
      under('learningPaths'),
    ),
  ]
}

/** Puts an issue under `key` of its parent. */
export const under =
  (...key: PropertyKey[]) =>
  (issue: Issue): Issue => ({ ...issue, path: [...key, ...issue.path] })

/**
 * The data file: organisations (with their API keys, user groups and learning paths) and users in
 * exact states. `$schema` may name the file's JSON Schema, for editors.
 *
 * @example
 * dataFileSchema.parse({ organisations: [{ orgId: 'acme', apiKeys: ['sk_test_acme'] }], users: [] })
 */
export const dataFileSchema = z
  .strictObject({
    $schema: z.string().optional(),
    organisations: z
      .array(dataFileOrganisationSchema)
      .max(dataFileLimits.organisations)
      .default([]),
    users: z.array(dataFileUserSchema).max(dataFileLimits.users).default([]),
  })
  .superRefine(
    (file, context) => {
      // With problems of shape too, the checks across records read the entries that are whole,
      // so that a file is refused with every problem it has at once.
      const whole = context.issues.length === 0
      const orgs = wholeEntries(file.organisations, dataFileOrganisationSchema, whole)
      const users = wholeEntries(file.users, dataFileUserSchema, whole)
      const issues = [
        ...repeatedOrgIds(file.organisations),
        ...organisationsIssues(orgs.items).map(orgs.renumber),
        ...usersIssues(users.items, orgs.items, file.organisations).map(users.renumber),
      ]
      for (const { path, message } of issues)
        context.addIssue({ code: 'custom', path: [...path], message })
    },
    { when: ({ value }) => hasLists(value) },
  )

/** Whether `value` is an object whose `organisations` and `users`, if any, are lists. */
function hasLists(value: unknown): value is { organisations: unknown[]; users: unknown[] } {
  if (typeof value !== 'object' || value === null) return false
  const { organisations = [], users = [] } = value as Record<string, unknown>
  return Array.isArray(organisations) && Array.isArray(users)
}

/**
 * The entries of `list` that `schema` accepts (all of them when the file is `whole`), and how to
 * put an issue of the `i`th of them back at that entry's place in `list`.
 */
function wholeEntries<S extends z.ZodType>(list: readonly unknown[], schema: S, whole: boolean) {
  const at = whole
    ? undefined
    : list.flatMap((entry, i) => (schema.safeParse(entry).success ? [i] : []))
  return {
    items: (at ? at.map((i) => list[i]) : list) as z.output<S>[],
    renumber: (issue: Issue): Issue => {
      const [collection, i, ...rest] = issue.path
      return at && typeof i === 'number'
        ? { ...issue, path: [collection as PropertyKey, at[i] as number, ...rest] }
        : issue
    },
  }
}

/** The `orgId` of an organisation of a file, whole or not. */
const orgIdOf = (org: unknown) => (org as { orgId?: unknown } | null)?.orgId

/** The `orgId`s declared twice, among every organisation that has one, whole or not. */
function repeatedOrgIds(organisations: readonly unknown[]): Issue[] {
  const named = organisations.flatMap((org, i) => {
    const orgId = orgIdOf(org)
    return typeof orgId === 'string' ? [{ orgId, i }] : []
  })
  return repeatedIds(named, (o) => o.orgId, 'orgId').map((issue) => ({
    ...issue,
    path: ['organisations', named[issue.path[0] as number]?.i as number, ...issue.path.slice(1)],
  }))
}

/** The problems of a file's organisations together: each key of one owner, groups and paths once. */
function organisationsIssues(organisations: readonly DataFileOrganisation[]): Issue[] {
  const keyOwners = new Map<string, string>()
  return [
    ...organisations.flatMap((org, i) =>
      org.apiKeys.flatMap((key, j) => {
        const owner = keyOwners.get(key)
        keyOwners.set(key, owner ?? org.orgId)
        return owner === undefined || owner === org.orgId
          ? []
          : [{ path: [i, 'apiKeys', j], message: `this is already a key of ${owner}` }]
      }),
    ),
    ...organisations.flatMap((org, i) => organisationIssues(org).map(under(i))),
    ...organisations.flatMap((org, i) =>
      Object.entries(org.snapshots ?? {}).flatMap(([name, snapshot]) =>
        userReferenceIssues(
          snapshot.users ?? [],
          () => declaredBy(org),
          () => '',
        ).map(under(i, 'snapshots', name, 'users')),
      ),
    ),
  ].map(under('organisations'))
}

/**
 * The problems of a file's users against its organisations: each names one the file has (`named`,
 * every organisation, whole or not), and what it refers to is declared by it (`organisations`, the
 * whole ones).
 */
function usersIssues(
  users: readonly DataFileUser[],
  organisations: readonly DataFileOrganisation[],
  named: readonly unknown[],
): Issue[] {
  const orgIds = new Set(named.map(orgIdOf))
  const byId = new Map(organisations.map((org) => [org.orgId, declaredBy(org)]))
  return [
    ...users.flatMap((user, i) =>
      orgIds.has(user.orgId)
        ? []
        : [{ path: [i, 'orgId'], message: `no organisation ${user.orgId} in organisations` }],
    ),
    ...userReferenceIssues(
      users,
      (i) => byId.get(users[i]?.orgId ?? '') ?? null,
      (i) => users[i]?.orgId ?? '',
    ),
  ].map(under('users'))
}

export type DataFile = z.input<typeof dataFileSchema>
export type ResolvedDataFile = z.output<typeof dataFileSchema>

/**
 * The JSON Schema of the data file, for editors (`"$schema"` in the file) and other languages:
 * generated from {@link dataFileSchema}, so it says what the mock accepts.
 */
export function dataFileJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(dataFileSchema, { io: 'input', unrepresentable: 'any' }),
    title: 'identify-api-mock data file',
    description:
      'Organisations and users in exact states, for `identify-api-mock serve --data FILE` and `createMockApi({ data })`.',
  }
}
