import * as z from 'zod'
import {
  maxSnapshotsPerOrganisation,
  type Snapshot,
  snapshotNameSchema,
} from '../api/snapshot-schemas.ts'
import { ApiError, InvalidInput } from '../base/errors.ts'
import {
  type CollectionName,
  collectionNames,
  forEachCollection,
  hasOrgId,
} from '../model/collections.ts'
import type { Database, MockState } from '../model/database.ts'
import { apiKeyRecord, startClocks } from '../model/declared-data.ts'
import { copyRecord } from '../model/indexed-records.ts'
import type { OrganisationSnapshotRecord } from '../model/records.ts'
import { withUserIdsFree } from '../model/user-ids.ts'
import type { RuleContext } from '../rules/context.ts'
import { parseInput } from '../rules/organisations.ts'

/**
 * What a snapshot leaves out of an organisation's records: its API keys (a restore keeps the
 * keys it has, a fork gets its own), what it was created with, and its snapshots.
 */
const notSaved = new Set<CollectionName>(['apiKeys', 'organisationStarts', 'organisationSnapshots'])

/** What a save takes: the snapshot's name. */
export const saveSnapshotInput = z.strictObject({ name: snapshotNameSchema })

/** What a restore keeps of the organisation's records, besides what a snapshot holds. */
const keptByRestore = notSaved

/** What a fork leaves out of the snapshot: the credentials of the organisation it was saved of. */
const notForked = new Set<CollectionName>(['signInTokens', 'webViewSessions'])

/** A snapshot record as the controls show it. */
function snapshotOf(record: OrganisationSnapshotRecord): Snapshot {
  const { name, createdAt, users, bytes } = record
  return { name, createdAt, users, bytes }
}

/**
 * The snapshots of organisation `orgId`, oldest first; 404 `Not found` for one the mock lacks.
 *
 * @example listSnapshots(ctx.db, 'tenant-a') // [{ name: 'ten-users', createdAt, users: 10, bytes: 5120 }]
 */
export function listSnapshots(db: Database, orgId: string): Snapshot[] {
  if (!db.organisations.get(orgId)) throw new ApiError('notFound')
  return db.organisationSnapshots.of(orgId).map(snapshotOf)
}

/** Snapshot `name` of organisation `orgId`: 404 `Not found` for an unknown organisation or name. */
export function snapshotNamed(
  db: Database,
  orgId: string,
  name: string,
): OrganisationSnapshotRecord {
  const record = db.organisations.get(orgId) && db.organisationSnapshots.get(orgId, name)
  if (!record) throw new ApiError('notFound')
  return record
}

/**
 * Saves the records of organisation `orgId` (its users with their tokens and sessions, groups,
 * paths, and the settings kept as records: clock, shapes, latency) and `settings` (the JSON of
 * those kept beside them) as snapshot `name`. A clock that runs is kept as a start from the time
 * it reads, so that a restore runs it on from there. 404 `Not found` for an unknown organisation,
 * 409 `Conflict` for a name it has, 400 for a bad name, one snapshot past
 * {@link maxSnapshotsPerOrganisation} or past `maxStateBytes`.
 *
 * @example await saveSnapshot(ctx, 'tenant-a', 'ten-users', '{"faults":[]}', options.maxStateBytes)
 */
export async function saveSnapshot(
  ctx: RuleContext,
  orgId: string,
  name: string,
  settings: string,
  maxStateBytes: number,
): Promise<Snapshot> {
  const { db } = ctx
  const { name: checked } = parseInput(saveSnapshotInput, { name })
  if (!db.organisations.get(orgId)) throw new ApiError('notFound')
  if (db.organisationSnapshots.get(orgId, checked)) throw new ApiError('conflict')
  if (db.organisationSnapshots.count(orgId) >= maxSnapshotsPerOrganisation) {
    throw new InvalidInput(
      `Invalid request parameters: the organisation holds ${maxSnapshotsPerOrganisation} snapshots, their limit: drop one first`,
    )
  }
  const state = db.organisationRecords(orgId, notSaved)
  const clocks = state.clocks.map((clock) =>
    clock.mode === 'running' ? { ...clock, at: ctx.now(orgId).toISOString(), since: null } : clock,
  )
  const records = JSON.stringify({ ...state, clocks })
  const record: OrganisationSnapshotRecord = {
    orgId,
    name: checked,
    createdAt: ctx.real().toISOString(),
    users: state.users.length,
    bytes: records.length + settings.length,
    records,
    settings,
  }
  const after = db.bytes + JSON.stringify(record).length
  if (after > maxStateBytes) {
    throw new InvalidInput(
      `Invalid request parameters: the snapshot would take the state to ${after} characters of JSON, past its limit of ${maxStateBytes} (maxStateBytes, --max-state-bytes)`,
    )
  }
  await db.collections.organisationSnapshots.create(record)
  return snapshotOf(record)
}

/**
 * Puts organisation `orgId` back in the state of its snapshot `name`: its records replaced by
 * those saved (its API keys, start and snapshots kept; a `userId` another user has taken since
 * given afresh, as a reset does), its clocks started again from what they read then. Returns
 * the snapshot's settings (JSON) for the caller to put back. 404 `Not found` for an unknown
 * organisation or name.
 *
 * @example const settings = restoreSnapshot(ctx, 'tenant-a', 'ten-users')
 */
export function restoreSnapshot(ctx: RuleContext, orgId: string, name: string): string {
  const { db, generateUserId, real } = ctx
  const snapshot = snapshotNamed(db, orgId, name)
  const saved = copiesOf(preparedOf(snapshot))
  db.removeOrganisation(orgId, keptByRestore)
  // Records the mock wrote from its own, each its schema's output: placed, not checked again.
  db.addParsed(withUserIdsFree(startClocks(saved, real()), db.usersByUserId, generateUserId))
  return snapshot.settings
}

/** How many snapshots keep their records parsed, ready to copy, the latest restored last. */
const preparedLimit = 8

/**
 * The records of the snapshots restored last, parsed: a `beforeEach` restores the same snapshot
 * again and again, and copying records is cheaper than parsing their JSON each time (measured in
 * bench/README.md). Bounded, as everything held is: the latest {@link preparedLimit}.
 */
const prepared = new Map<OrganisationSnapshotRecord, MockState>()

function preparedOf(snapshot: OrganisationSnapshotRecord): MockState {
  const state = prepared.get(snapshot) ?? (JSON.parse(snapshot.records) as MockState)
  prepared.delete(snapshot)
  prepared.set(snapshot, state)
  for (const oldest of prepared.keys()) {
    if (prepared.size <= preparedLimit) break
    prepared.delete(oldest)
  }
  return state
}

/** A copy of every record of `state`, for the store to own. */
function copiesOf(state: MockState): MockState {
  return forEachCollection<MockState>((name) => (state[name] as object[]).map(copyRecord))
}

/**
 * Drops snapshot `name` of organisation `orgId`; 404 `Not found` for an unknown organisation or
 * name.
 */
export function dropSnapshot(db: Database, orgId: string, name: string): void {
  const snapshot = snapshotNamed(db, orgId, name)
  prepared.delete(snapshot)
  db.collections.organisationSnapshots.delete(snapshot as never)
}

/**
 * The records a fork of `snapshot` starts with, as organisation `orgId` with `apiKey` (named
 * `name`): the snapshot's, every one moved to `orgId`, each user and certificate with a fresh id
 * (a `userId` is unique in the mock), without the sign-in tokens and web-view sessions (secrets
 * of the organisation it was saved of, valid there only), and with its own API key.
 *
 * @example const start = forkedStart(ctx, snapshot, 'tenant-b', 'sk_test_…', undefined)
 */
export function forkedStart(
  ctx: RuleContext,
  snapshot: OrganisationSnapshotRecord,
  orgId: string,
  apiKey: string,
  name: string | undefined,
): MockState {
  const saved = JSON.parse(snapshot.records) as MockState
  const userIds = new Map(saved.users.map((u) => [u.userId, ctx.generateUserId()]))
  const start = {} as Record<CollectionName, Record<string, unknown>[]>
  for (const collection of collectionNames) {
    const records = saved[collection] as Record<string, unknown>[]
    start[collection] = notForked.has(collection)
      ? []
      : records.map((record) => {
          const moved = { ...record }
          if (hasOrgId(collection)) moved.orgId = orgId
          if (typeof record.userId === 'string') moved.userId = userIds.get(record.userId)
          if (collection === 'certificates') moved.certificateId = `cert-${crypto.randomUUID()}`
          return moved
        })
  }
  const state = start as unknown as MockState
  state.organisations = [{ orgId, name: name ?? orgId }]
  state.apiKeys = [apiKeyRecord(apiKey, orgId)]
  return state
}
