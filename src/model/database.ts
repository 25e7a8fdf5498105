import { z } from 'zod'
import {
  type CollectionName,
  collectionNames,
  collectionTable,
  forEachCollection,
  type RecordSchemaOf,
  type UserCollectionName,
  userCollectionNames,
} from './collections.ts'
import { GroupIndex, orgKey, UniqueIndex } from './indexes.ts'
import { PartitionedCollection, type StoredOf } from './partitioned-collection.ts'
import { TimeOrder } from './time-order.ts'

/**
 * The `@msw/data` collections that hold every record of the mock. A consumer may read them with
 * `@msw/data`'s query API and seed them with `create`. Each is partitioned (see
 * {@link PartitionedCollection}) so that a write costs the same at any size.
 *
 * @example
 * const archived = api.db.users.findMany((q) => q.where({ registrationStatus: 'archived' }))
 */
export function createCollections(): Collections {
  return forEachCollection<Collections>(
    (name) => new PartitionedCollection({ schema: collectionTable[name].schema }),
  )
}

/** One partitioned `@msw/data` collection for each collection of {@link collectionTable}. */
export type Collections = { [C in CollectionName]: PartitionedCollection<RecordSchemaOf<C>> }

/** Every record of the mock, as plain data: what `state()` returns and a dataset seeds. */
export const mockStateSchema = z.strictObject(
  forEachCollection<{ [C in CollectionName]: z.ZodArray<RecordSchemaOf<C>> }>((name) =>
    z.array(collectionTable[name].schema),
  ),
)

/** Every record of the mock, as plain data: what `state()` returns and a dataset seeds. */
export type MockState = z.output<typeof mockStateSchema>

/** A state without a record: every collection empty. */
export function emptyState(): MockState {
  return forEachCollection<MockState>(() => [])
}

/** One change to the records: a record written (created or changed in place) or removed. */
export type StateChange = {
  [C in keyof MockState]: { collection: C; op: 'put' | 'delete'; record: MockState[C][number] }
}[keyof MockState]

/**
 * The collections with the indexes the rules look records up by, so that no lookup by
 * `(orgId, id)`, key, token or user scans a collection. A reset builds a new `Database`
 * rather than clearing this one.
 */
export class Database {
  readonly collections: Collections = createCollections()
  readonly organisations = new UniqueIndex(this.collections.organisations, (r) => r.orgId)
  readonly apiKeys = new UniqueIndex(this.collections.apiKeys, (r) => r.keyHash)
  readonly users = new UniqueIndex(this.collections.users, (r) => orgKey(r.orgId, r.id))
  readonly usersByUserId = new UniqueIndex(this.collections.users, (r) => r.userId)
  readonly userGroups = new UniqueIndex(this.collections.userGroups, (r) =>
    orgKey(r.orgId, r.groupId),
  )
  readonly learningPaths = new UniqueIndex(this.collections.learningPaths, (r) =>
    orgKey(r.orgId, r.learningPathId),
  )
  readonly learningProgress = new UniqueIndex(this.collections.learningProgress, (r) => r.userId)
  readonly certificates = new GroupIndex(this.collections.certificates, (r) => r.userId)
  readonly userGroupsByOrgId = new GroupIndex(this.collections.userGroups, (r) => r.orgId)
  readonly signInTokens = new UniqueIndex(this.collections.signInTokens, (r) => r.tokenHash)
  readonly signInTokensByUserId = new GroupIndex(this.collections.signInTokens, (r) => r.userId)
  readonly signInTokensByExpiry = new TimeOrder(this.collections.signInTokens, (r) =>
    Date.parse(r.expiresAt),
  )
  readonly webViewSessions = new UniqueIndex(this.collections.webViewSessions, (r) => r.sessionHash)
  readonly webViewSessionsByUserId = new GroupIndex(
    this.collections.webViewSessions,
    (r) => r.userId,
  )
  readonly webViewSessionsByStart = new TimeOrder(this.collections.webViewSessions, (r) =>
    Date.parse(r.createdAt),
  )
  /**
   * The records of a user, by its `userId`, in each collection whose records belong to one: what
   * {@link removeRecordsOf} removes.
   */
  readonly #byUser: {
    [C in UserCollectionName]: (userId: string) => StoredOf<RecordSchemaOf<C>>[]
  } = {
    learningProgress: (userId) =>
      [this.learningProgress.get(userId)].filter((r) => r !== undefined),
    certificates: (userId) => this.certificates.get(userId),
    signInTokens: (userId) => this.signInTokensByUserId.get(userId),
    webViewSessions: (userId) => this.webViewSessionsByUserId.get(userId),
  }
  /** The changes not yet taken, while {@link trackChanges} is on. */
  #changes: StateChange[] | undefined

  constructor() {
    for (const collection of collectionNames) {
      ;(this.collections[collection] as PartitionedCollection<never>).observe({
        added: (record) => this.#changes?.push({ collection, op: 'put', record }),
        removed: (record) => this.#changes?.push({ collection, op: 'delete', record }),
      })
    }
  }

  /**
   * From now on, keeps every record created or removed (and each one a rule marks with
   * {@link changed}) until {@link clearChanges}: what a state file appends after each operation.
   */
  trackChanges(): void {
    this.#changes ??= []
  }

  /** Marks `record` as changed in place, for the changes being tracked. */
  changed<C extends keyof MockState>(collection: C, record: MockState[C][number]): void {
    this.#changes?.push({ collection, op: 'put', record } as StateChange)
  }

  /** The changes tracked since the last {@link clearChanges}, in the order they happened. */
  get pendingChanges(): readonly StateChange[] {
    return this.#changes ?? []
  }

  clearChanges(): void {
    if (this.#changes) this.#changes = []
  }

  /** Creates a copy of every record of `state`, each validated by its collection's schema. */
  async load(state: Partial<MockState>): Promise<void> {
    for (const name of collectionNames) {
      const collection = this.collections[name] as PartitionedCollection<never>
      for (const record of state[name] ?? []) await collection.create(record as never)
    }
  }

  /** Every record, one array per collection: the stored objects themselves, not copies. */
  records(): MockState {
    return forEachCollection<MockState>((name) => this.collections[name].all())
  }

  /**
   * Removes every record that belongs to user `userId` (the collections the table marks `ofUser`):
   * what a delete removes with the user.
   */
  removeRecordsOf(userId: string): void {
    for (const name of userCollectionNames) {
      const collection = this.collections[name] as PartitionedCollection<never>
      for (const record of this.#byUser[name](userId)) collection.delete(record as never)
    }
  }

  /** A deep, plain copy of every record, one array per collection. */
  snapshot(): MockState {
    return structuredClone(this.records())
  }
}
