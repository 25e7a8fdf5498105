import type { DataFileOrganisation, OrganisationUser, ResolvedDataFile } from '../api/data-file.ts'
import { profileOrNull } from '../api/profile-fields.ts'
import { InvalidInput } from '../base/errors.ts'
import { jsonPath } from '../base/issues.ts'
import { hashSecret } from '../base/secrets.ts'
import { clockRecordOf } from './clock-index.ts'
import { collectionNames, hasOrgId } from './collections.ts'
import type { Credentials, Dataset } from './dataset.ts'
import { emptyState, type MockState } from './mock-state.ts'
import type {
  ApiKeyRecord,
  ClockRecord,
  LearningPathRecord,
  OrganisationSnapshotRecord,
} from './records.ts'

/**
 * How an API key is stored: its hash only.
 *
 * @example apiKeyRecord('sk_test_…', 'org-1') // { keyHash: '9f…', orgId: 'org-1' }
 */
export function apiKeyRecord(key: string, orgId: string): ApiKeyRecord {
  return { keyHash: hashSecret(key), orgId }
}

/**
 * The records of one user in an exact state, as a data file declares it: omitted fields `null`,
 * `userGroups` `[]`, `percentComplete` 100 once completed and 0 before. `pathName` names the
 * learning paths of its organisation, for the certificates' default title.
 *
 * @example userRecordsOf('acme', { id: 'ada', registrationStatus: 'archived' }, uuid, () => undefined)
 */
export function userRecordsOf(
  orgId: string,
  user: OrganisationUser,
  userId: string,
  pathName: (learningPathId: string) => string | undefined,
): Pick<MockState, 'users' | 'learningProgress' | 'certificates'> {
  const { learningPath, certificates = [], userId: _, ...fields } = user
  return {
    users: [
      {
        userId,
        orgId,
        id: fields.id,
        registrationStatus: fields.registrationStatus,
        registeredAt: fields.registeredAt ?? null,
        lastActive: fields.lastActive ?? null,
        ...profileOrNull(fields),
        userGroups: [...new Set(fields.userGroups ?? [])],
      },
    ],
    learningProgress: learningPath
      ? [
          {
            userId,
            learningPathId: learningPath.learningPathId,
            startDate: learningPath.startDate,
            dueDate: learningPath.dueDate ?? null,
            completedAt: learningPath.completedAt ?? null,
            percentComplete: learningPath.percentComplete ?? (learningPath.completedAt ? 100 : 0),
          },
        ]
      : [],
    certificates: certificates.map((certificate) => ({
      certificateId: `cert-${crypto.randomUUID()}`,
      userId,
      learningPathId: certificate.learningPathId,
      title:
        certificate.title ??
        `Certificate of completion: ${pathName(certificate.learningPathId) ?? certificate.learningPathId}`,
      issuedAt: certificate.issuedAt,
    })),
  }
}

/**
 * The records an organisation declares of itself: it, its user groups and learning paths, and its
 * own answer shapes and clock (a clock running from an instant starts when it is loaded: see
 * {@link startClocks}).
 */
export function organisationRecordsOf(
  org: Omit<DataFileOrganisation, 'apiKeys'>,
): Pick<
  MockState,
  | 'organisations'
  | 'userGroups'
  | 'learningPaths'
  | 'organisationShapes'
  | 'organisationLatencies'
  | 'clocks'
> {
  const { orgId } = org
  const clock = org.clock && clockRecordOf(orgId, org.clock, null)
  return {
    organisations: [{ orgId, name: org.name ?? orgId }],
    organisationShapes: org.shapes ? [{ orgId, shapes: org.shapes, variedUsers: 0 }] : [],
    organisationLatencies: org.latency ? [{ orgId, latency: JSON.stringify(org.latency) }] : [],
    clocks: clock ? [clock] : [],
    userGroups: (org.userGroups ?? []).map(({ groupId, name }) => ({
      orgId,
      groupId,
      name: name ?? groupId,
    })),
    learningPaths: (org.learningPaths ?? []).map(({ learningPathId, name }) => ({
      orgId,
      learningPathId,
      name,
    })),
  }
}

/**
 * Adds what a data file declares to `dataset` (the seeded data): an organisation the dataset has
 * gets the file's keys, groups, paths and users added (a user, group or path with the id of one
 * it has replaces it). Throws a `TypeError` naming the file's path of a `userId` or API key
 * another user or organisation already has.
 */
export function addDataFile(dataset: Dataset, file: ResolvedDataFile): void {
  const { state, credentials } = dataset
  file.organisations.forEach((org, i) => {
    const declared = organisationRecordsOf(org)
    const credential = credentials.find((c) => c.orgId === org.orgId)
    if (credential) {
      if (org.name !== undefined) {
        credential.name = org.name
        for (const record of state.organisations)
          if (record.orgId === org.orgId) record.name = org.name
      }
    } else {
      state.organisations.push(...declared.organisations)
      credentials.push({ orgId: org.orgId, name: org.name ?? org.orgId, apiKeys: [] })
    }
    replaceOrAdd(state.userGroups, declared.userGroups, (g) => `${g.orgId}\0${g.groupId}`)
    replaceOrAdd(
      state.learningPaths,
      declared.learningPaths,
      (p) => `${p.orgId}\0${p.learningPathId}`,
    )
    replaceOrAdd(state.organisationShapes, declared.organisationShapes, (o) => o.orgId)
    replaceOrAdd(state.organisationLatencies, declared.organisationLatencies, (o) => o.orgId)
    replaceOrAdd(state.clocks, declared.clocks, (c) => c.orgId)
    replaceOrAdd(
      state.organisationSnapshots,
      snapshotRecordsOf(org),
      (r) => `${r.orgId}\0${r.name}`,
    )
    addKeys(dataset, org, credential ?? (credentials.at(-1) as Credentials), i)
  })
  const pathNames = new Map(state.learningPaths.map((p) => [pathKey(p), p.name]))
  file.users.forEach((user, i) => {
    const replaced = state.users.find((u) => u.orgId === user.orgId && u.id === user.id)
    if (replaced) removeUserRecords(state, replaced.userId)
    const userId = user.userId ?? crypto.randomUUID()
    if (state.users.some((u) => u.userId === userId)) {
      throw new InvalidInput(`${jsonPath(['users', i, 'userId'])}: another user has this userId`)
    }
    const records = userRecordsOf(user.orgId, user, userId, (learningPathId) =>
      pathNames.get(pathKey({ orgId: user.orgId, learningPathId })),
    )
    state.users.push(...records.users)
    state.learningProgress.push(...records.learningProgress)
    state.certificates.push(...records.certificates)
  })
}

/**
 * The snapshots a data file's organisation declares, as records: each its users in exact states,
 * the organisation's groups and learning paths, and its own settings (shapes, latency, clock; a
 * clock that runs starts when the snapshot is restored). Saved at the time the file is read.
 *
 * @example snapshotRecordsOf({ orgId: 'acme', apiKeys: [], snapshots: { empty: {} } })[0].name // 'empty'
 */
export function snapshotRecordsOf(org: DataFileOrganisation): OrganisationSnapshotRecord[] {
  const createdAt = new Date().toISOString()
  return Object.entries(org.snapshots ?? {}).map(([name, declared]) => {
    const { orgId } = org
    const { shapes, latency, clock, users = [] } = declared
    const state = {
      ...emptyState(),
      ...organisationRecordsOf({
        orgId,
        ...(org.name !== undefined && { name: org.name }),
        ...(org.userGroups && { userGroups: org.userGroups }),
        ...(org.learningPaths && { learningPaths: org.learningPaths }),
        ...(shapes !== undefined && { shapes }),
        ...(latency !== undefined && { latency }),
        ...(clock !== undefined && { clock }),
      }),
    }
    const pathNames = new Map(state.learningPaths.map((p) => [p.learningPathId, p.name]))
    for (const user of users) {
      const userId = user.userId ?? crypto.randomUUID()
      const records = userRecordsOf(orgId, user, userId, (id) => pathNames.get(id))
      state.users.push(...records.users)
      state.learningProgress.push(...records.learningProgress)
      state.certificates.push(...records.certificates)
    }
    const records = JSON.stringify(state)
    const settings = '{}'
    const bytes = records.length + settings.length
    return { orgId, name, createdAt, users: users.length, bytes, records, settings }
  })
}

function addKeys(
  dataset: Dataset,
  org: DataFileOrganisation,
  credential: Credentials,
  index: number,
) {
  const taken = new Map(dataset.state.apiKeys.map((k) => [k.keyHash, k.orgId]))
  for (const key of new Set(org.apiKeys)) {
    const record = apiKeyRecord(key, org.orgId)
    const owner = taken.get(record.keyHash)
    if (owner === org.orgId) continue
    if (owner !== undefined) {
      const at = jsonPath(['organisations', index, 'apiKeys'])
      throw new InvalidInput(`${at}: an API key of ${org.orgId} is already a key of ${owner}`)
    }
    dataset.state.apiKeys.push(record)
    credential.apiKeys.push(key)
  }
}

const pathKey = (path: Pick<LearningPathRecord, 'orgId' | 'learningPathId'>) =>
  `${path.orgId}\0${path.learningPathId}`

function replaceOrAdd<R>(records: R[], added: readonly R[], keyOf: (record: R) => string) {
  const at = new Map(records.map((record, i) => [keyOf(record), i]))
  for (const record of added) {
    const i = at.get(keyOf(record))
    if (i === undefined) records.push(record)
    else records[i] = record
  }
}

/** Removes from `state` user `userId` and every record of it. */
function removeUserRecords(state: MockState, userId: string) {
  state.users = state.users.filter((u) => u.userId !== userId)
  state.learningProgress = state.learningProgress.filter((r) => r.userId !== userId)
  state.certificates = state.certificates.filter((r) => r.userId !== userId)
}

/**
 * The records of organisation `orgId` in `state`, in every collection: those that carry its
 * `orgId`, and those of its users. What a reset of one organisation returns it to.
 *
 * @example organisationSlice(dataset.state, 'org-1').users.length // 8
 */
export function organisationSlice(state: MockState, orgId: string): MockState {
  const slice = emptyState()
  const userIds = new Set(state.users.filter((u) => u.orgId === orgId).map((u) => u.userId))
  for (const name of collectionNames) {
    const records = state[name] as readonly Record<string, unknown>[]
    ;(slice[name] as unknown[]) = records.filter((record) =>
      hasOrgId(name) ? record.orgId === orgId : userIds.has(record.userId as string),
    )
  }
  return slice
}

/**
 * `state` with each declared clock that runs from an instant (its `since` `null`) started at the
 * real instant `real`: what a load, a reset or the creation of an organisation stores, so that the
 * clock runs from then on, and a state file keeps when it started. `state` itself, unchanged,
 * when it declares none: the declared data is kept as it is, for the next reset.
 *
 * @example startClocks(dataset.state, ctx.real()).clocks // each running clock with its `since`
 */
export function startClocks<S extends Partial<MockState>>(state: S, real: Date): S {
  const declared = (clock: ClockRecord) => clock.mode === 'running' && clock.since === null
  if (!state.clocks?.some(declared)) return state
  const since = real.toISOString()
  return {
    ...state,
    clocks: state.clocks.map((clock) => (declared(clock) ? { ...clock, since } : clock)),
  }
}
