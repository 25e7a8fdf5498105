import { z } from 'zod'
import { GroupIndex, orgKey, UniqueIndex } from './indexes.ts'
import { PartitionedCollection } from './partitioned-collection.ts'
import {
  apiKeyRecordSchema,
  certificateRecordSchema,
  learningPathRecordSchema,
  learningProgressRecordSchema,
  organisationRecordSchema,
  signInTokenRecordSchema,
  userGroupRecordSchema,
  userRecordSchema,
  webViewSessionRecordSchema,
} from './records.ts'
import { TimeOrder } from './time-order.ts'

/**
 * The `@msw/data` collections that hold every record of the mock. A consumer may read them with
 * `@msw/data`'s query API and seed them with `create`. Each is partitioned (see
 * {@link PartitionedCollection}) so that a write costs the same at any size.
 *
 * @example
 * const archived = api.db.users.findMany((q) => q.where({ registrationStatus: 'archived' }))
 */
export function createCollections() {
  return {
    organisations: new PartitionedCollection({ schema: organisationRecordSchema }),
    apiKeys: new PartitionedCollection({ schema: apiKeyRecordSchema }),
    users: new PartitionedCollection({ schema: userRecordSchema }),
    userGroups: new PartitionedCollection({ schema: userGroupRecordSchema }),
    learningPaths: new PartitionedCollection({ schema: learningPathRecordSchema }),
    learningProgress: new PartitionedCollection({ schema: learningProgressRecordSchema }),
    certificates: new PartitionedCollection({ schema: certificateRecordSchema }),
    signInTokens: new PartitionedCollection({ schema: signInTokenRecordSchema }),
    webViewSessions: new PartitionedCollection({ schema: webViewSessionRecordSchema }),
  }
}

export type Collections = ReturnType<typeof createCollections>

/** Every record of the mock, as plain data: what `state()` returns and a dataset seeds. */
export const mockStateSchema = z.strictObject({
  organisations: z.array(organisationRecordSchema),
  apiKeys: z.array(apiKeyRecordSchema),
  users: z.array(userRecordSchema),
  userGroups: z.array(userGroupRecordSchema),
  learningPaths: z.array(learningPathRecordSchema),
  learningProgress: z.array(learningProgressRecordSchema),
  certificates: z.array(certificateRecordSchema),
  signInTokens: z.array(signInTokenRecordSchema),
  webViewSessions: z.array(webViewSessionRecordSchema),
})

/** Every record of the mock, as plain data: what `state()` returns and a dataset seeds. */
export type MockState = z.output<typeof mockStateSchema>

/** One change to the records: a record written (created or changed in place) or removed. */
export type StateChange = {
  [C in keyof MockState]: { collection: C; op: 'put' | 'delete'; record: MockState[C][number] }
}[keyof MockState]

const collectionNames = [
  'organisations',
  'apiKeys',
  'userGroups',
  'learningPaths',
  'users',
  'learningProgress',
  'certificates',
  'signInTokens',
  'webViewSessions',
] as const satisfies ReadonlyArray<keyof MockState & keyof Collections>

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

  /**
   * Creates a copy of every record of `state`, each validated by its collection's schema, unless
   * `validated` says they already were (a reset reloading the records the first load accepted).
   */
  async load(state: Partial<MockState>, { validated = false } = {}): Promise<void> {
    for (const name of collectionNames) {
      const collection = this.collections[name] as PartitionedCollection<never>
      for (const record of state[name] ?? []) {
        await (validated
          ? collection.createValidated(copyOf(record) as never)
          : collection.create(record as never))
      }
    }
  }

  /** Every record, one array per collection: the stored objects themselves, not copies. */
  records(): MockState {
    const c = this.collections
    return {
      organisations: c.organisations.all(),
      apiKeys: c.apiKeys.all(),
      users: c.users.all(),
      userGroups: c.userGroups.all(),
      learningPaths: c.learningPaths.all(),
      learningProgress: c.learningProgress.all(),
      certificates: c.certificates.all(),
      signInTokens: c.signInTokens.all(),
      webViewSessions: c.webViewSessions.all(),
    }
  }

  /** A deep, plain copy of every record, one array per collection. */
  snapshot(): MockState {
    return structuredClone(this.records())
  }
}

/** A copy of a record: its fields are strings, numbers, `null` and arrays of strings. */
function copyOf<R extends object>(record: R): R {
  const copy = { ...record }
  for (const [key, value] of Object.entries(copy)) {
    if (Array.isArray(value)) (copy as Record<string, unknown>)[key] = [...value]
  }
  return copy
}
