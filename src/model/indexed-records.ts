import { timestampMs } from '../base/time.ts'
import { ClockIndex } from './clock-index.ts'
import {
  type CollectionName,
  type CredentialCollectionName,
  collectionNames,
  collectionTable,
  forEachCollection,
  hasOrgId,
  type ModelCollectionName,
  modelCollectionNames,
  type RecordSchemaOf,
  type UserCollectionName,
  userCollectionNames,
} from './collections.ts'
import { CredentialStore } from './credential-store.ts'
import { type CollectionObserver, GroupIndex, OrgIndex, UniqueIndex } from './indexes.ts'
import type { MockState } from './mock-state.ts'
import {
  adoptStaged,
  PartitionedCollection,
  type StoredOf,
  stageRecords,
} from './partitioned-collection.ts'
import type { SignInTokenRecord, WebViewSessionRecord } from './records.ts'
import { SecretFingerprints } from './secret-fingerprints.ts'
import { TimeOrder } from './time-order.ts'

/**
 * The `@msw/data` collections that hold the model a test reads and seeds: organisations, API keys
 * (hashed), users, groups, learning paths, progress, certificates. A consumer may read them with
 * `@msw/data`'s query API and seed them with `create`. Each is partitioned (see
 * {@link PartitionedCollection}) so that a write costs the same at any size. Sign-in tokens and
 * web-view sessions are not among them: they live in stores of their own (see
 * {@link IndexedRecords}), and `state()` lists them.
 *
 * @example
 * const archived = api.db.users.findMany((q) => q.where({ registrationStatus: 'archived' }))
 */
function createCollections(): Collections {
  return Object.fromEntries(
    modelCollectionNames.map((name) => [
      name,
      new PartitionedCollection({ schema: collectionTable[name].schema }),
    ]),
  ) as Collections
}

/** One partitioned `@msw/data` collection for each collection of the model (see {@link createCollections}). */
export type Collections = {
  [C in ModelCollectionName]: PartitionedCollection<RecordSchemaOf<C>>
}

/** A record as collection `C` of `api.db` holds it (named, so that declarations can name it). */
type Stored<C extends ModelCollectionName> = StoredOf<RecordSchemaOf<C>>

/** A collection or a credential store, as the operations on every record use either. */
export interface RecordHolder {
  create(record: never): unknown
  delete(record: never): unknown
  all(): object[]
  observe(observer: CollectionObserver<never>): void
}

/**
 * The records of a mock: the collections and the credential stores, with the indexes the rules
 * look records up by, so that no lookup by `(orgId, id)`, key, token or user scans a collection.
 * Every index observes its collection or store, and so keeps up with every record that enters or
 * leaves, a consumer's through `api.db` included. A reset builds new records rather than clearing
 * these.
 *
 * @example
 * const records = new IndexedRecords()
 * await records.add({ organisations: [{ orgId: 'acme', name: 'Acme' }] })
 * records.organisations.get('acme') // the record
 */
export class IndexedRecords {
  readonly collections: Collections = createCollections()
  /** The sign-in tokens, by the hash of each token: not an `@msw/data` collection. */
  readonly signInTokens = new CredentialStore<SignInTokenRecord>((r) => r.tokenHash)
  /** The web-view sessions, by the hash of each session id: not an `@msw/data` collection. */
  readonly webViewSessions = new CredentialStore<WebViewSessionRecord>((r) => r.sessionHash)
  readonly organisations = new UniqueIndex<Stored<'organisations'>>(
    this.collections.organisations,
    (r) => r.orgId,
  )
  readonly apiKeys = new UniqueIndex<Stored<'apiKeys'>>(this.collections.apiKeys, (r) => r.keyHash)
  readonly users = new OrgIndex<Stored<'users'>>(this.collections.users, (r) => r.id)
  readonly usersByUserId = new UniqueIndex<Stored<'users'>>(this.collections.users, (r) => r.userId)
  readonly userGroups = new OrgIndex<Stored<'userGroups'>>(
    this.collections.userGroups,
    (r) => r.groupId,
  )
  readonly learningPaths = new OrgIndex<Stored<'learningPaths'>>(
    this.collections.learningPaths,
    (r) => r.learningPathId,
  )
  readonly learningProgress = new UniqueIndex<Stored<'learningProgress'>>(
    this.collections.learningProgress,
    (r) => r.userId,
  )
  readonly certificates = new GroupIndex<Stored<'certificates'>>(
    this.collections.certificates,
    (r) => r.userId,
  )
  readonly signInTokensByUserId = new GroupIndex(this.signInTokens, (r) => r.userId)
  /**
   * Each organisation's tokens by expiry: each is swept at its own organisation's clock. Ordered
   * by the second after their expiry (rounded up, never down): a redemption compares the expiry to
   * the millisecond, so a sweep at most a second late changes no answer, and the tokens of one
   * second tie, so that the one an identify evicts moves none of the others in the heap.
   */
  readonly signInTokensByExpiry = new TimeOrder(
    this.signInTokens,
    (r) => Math.ceil(timestampMs(r.expiresAt) / 1000) * 1000,
    (r) => r.orgId,
  )
  readonly webViewSessionsByUserId = new GroupIndex(this.webViewSessions, (r) => r.userId)
  readonly organisationStarts = new UniqueIndex<Stored<'organisationStarts'>>(
    this.collections.organisationStarts,
    (r) => r.orgId,
  )
  readonly organisationSnapshots = new OrgIndex<Stored<'organisationSnapshots'>>(
    this.collections.organisationSnapshots,
    (r) => r.name,
  )
  readonly organisationShapes = new UniqueIndex<Stored<'organisationShapes'>>(
    this.collections.organisationShapes,
    (r) => r.orgId,
  )
  readonly organisationLatencies = new UniqueIndex<Stored<'organisationLatencies'>>(
    this.collections.organisationLatencies,
    (r) => r.orgId,
  )
  /** The gateways a test set: the mock's (`""`), and the organisations' own. */
  readonly gateways = new UniqueIndex<Stored<'gateways'>>(this.collections.gateways, (r) => r.orgId)
  readonly userShapes = new UniqueIndex<Stored<'userShapes'>>(
    this.collections.userShapes,
    (r) => r.userId,
  )
  /** Each organisation's sessions by start: each is swept at its own organisation's clock. */
  readonly webViewSessionsByStart = new TimeOrder(
    this.webViewSessions,
    (r) => timestampMs(r.createdAt),
    (r) => r.orgId,
  )
  /** The clocks a test set: the mock's, and the organisations' own. */
  readonly clocks = new ClockIndex<Stored<'clocks'>>(this.collections.clocks)
  /** The secrets held in clear since the start, for the journal's redaction to find. */
  readonly secretFingerprints = new SecretFingerprints({
    apiKeys: this.collections.apiKeys,
    signInTokens: this.signInTokens,
    webViewSessions: this.webViewSessions,
  })
  /**
   * The records of a user, by its `userId`, in each collection whose records belong to one: what
   * {@link removeRecordsOf} removes.
   */
  readonly #byUser: {
    [C in UserCollectionName]: (userId: string) => readonly object[]
  } = {
    learningProgress: (userId) =>
      [this.learningProgress.get(userId)].filter((r) => r !== undefined),
    certificates: (userId) => this.certificates.get(userId),
    signInTokens: (userId) => this.signInTokensByUserId.get(userId),
    webViewSessions: (userId) => this.webViewSessionsByUserId.get(userId),
    userShapes: (userId) => [this.userShapes.get(userId)].filter((r) => r !== undefined),
  }

  /**
   * Resolves once every record {@link place} staged is in `@msw/data` (or {@link stopAdoption} has
   * stopped the work): from then on `api.db`'s hooks see every record as `@msw/data`'s.
   */
  adopted: Promise<void> = Promise.resolve()
  readonly #adoption = new AbortController()

  /** Where the records of collection `name` live: its `@msw/data` collection, or its store. */
  protected holderOf(name: CollectionName): RecordHolder {
    return isCredential(name) ? this[name] : this.collections[name]
  }

  /**
   * Stores `records` of collection `name` themselves, each already its schema's output: a store
   * keeps them, a collection stages them (indexed, counted and readable at once), to be adopted
   * into `@msw/data` by {@link adoptPlaced}. What a load does with the records it checked.
   */
  protected place(name: CollectionName, records: readonly object[]): void {
    if (isCredential(name)) for (const record of records) this[name].create(record as never)
    else stageRecords(this.collections[name] as never, records as never)
  }

  /** Adopts every record {@link place} staged into `@msw/data`, in the background: see {@link adopted}. */
  protected adoptPlaced(): void {
    this.adopted = this.#adoptStaged()
  }

  async #adoptStaged(): Promise<void> {
    for (const name of modelCollectionNames) {
      await adoptStaged(this.collections[name] as never, this.#adoption.signal)
    }
  }

  /** Stops the background adoption: a reset or a new load has replaced these records. */
  stopAdoption(): void {
    this.#adoption.abort()
  }

  /**
   * Creates a copy of every record of `state`, validated by its collection's schema: in a
   * `Database`, a change of the operation under way, written, measured and taken back with it (an
   * organisation created or reset at run time).
   */
  async add(state: Partial<MockState>): Promise<void> {
    for (const name of collectionNames) {
      for (const record of state[name] ?? []) await this.#create(name, copyRecord(record))
    }
  }

  /**
   * Stores the records of `state` themselves, each already its schema's output and owned by the
   * store from now on (a snapshot's, parsed from the JSON the mock wrote): placed as a load places
   * them, indexed and counted at once and adopted into `@msw/data` in the background, without a
   * validation or an `@msw/data` `create` each. In a `Database`, changes of the operation under
   * way like {@link add}'s.
   */
  addParsed(state: Partial<MockState>): void {
    for (const name of collectionNames) {
      const records = state[name] ?? []
      if (records.length > 0) this.place(name, records)
    }
    this.adoptPlaced()
  }

  /** {@link add}, each record stored told to `each` with its collection. */
  protected async addEach(
    state: Partial<MockState>,
    each: (collection: CollectionName, record: object) => void,
  ): Promise<void> {
    for (const name of collectionNames) {
      for (const record of state[name] ?? []) {
        each(name, (await this.#create(name, copyRecord(record))) as object)
      }
    }
  }

  /** Every record, one array per collection: the stored objects themselves, not copies. */
  records(): MockState {
    return forEachCollection<MockState>((name) => this.holderOf(name).all())
  }

  /** A deep, plain copy of every record, one array per collection. */
  snapshot(): MockState {
    return structuredClone(this.records())
  }

  /**
   * Removes every record that belongs to user `userId` (the collections the table marks `ofUser`):
   * what a delete removes with the user.
   */
  removeRecordsOf(userId: string): void {
    for (const name of userCollectionNames) {
      const holder = this.holderOf(name)
      for (const record of this.#byUser[name](userId)) holder.delete(record as never)
    }
  }

  /**
   * Removes organisation `orgId` and every record of it: its users with everything a delete
   * removes, and every record that carries its `orgId` (but those of the collections it `keep`s:
   * a reset keeps the organisation's snapshots, a restore its keys too). Scans each collection
   * that carries an `orgId` once: for the controls that remove or reset one organisation, not for
   * an API call.
   */
  removeOrganisation(orgId: string, keep: ReadonlySet<CollectionName> = new Set()): void {
    for (const user of this.users.of(orgId)) this.removeRecordsOf(user.userId)
    for (const name of collectionNames) {
      if (!hasOrgId(name) || keep.has(name)) continue
      const holder = this.holderOf(name)
      for (const record of holder.all() as { orgId: string }[]) {
        if (record.orgId === orgId) holder.delete(record as never)
      }
    }
  }

  /**
   * The records of organisation `orgId`, the stored objects themselves, in every collection but
   * those it `skip`s: those that carry its `orgId`, and those of its users. What a snapshot saves.
   */
  organisationRecords(orgId: string, skip: ReadonlySet<CollectionName>): MockState {
    const users = this.users.of(orgId)
    return forEachCollection<MockState>((name) => {
      if (skip.has(name)) return []
      if (name === 'users') return users
      if (hasOrgId(name)) {
        return (this.holderOf(name).all() as { orgId: string }[]).filter((r) => r.orgId === orgId)
      }
      const ofUser = this.#byUser[name as UserCollectionName]
      return users.flatMap((user) => ofUser(user.userId))
    })
  }

  /**
   * Stores a copy of `record` in collection `name`, validated by its schema: `@msw/data`'s
   * `create` for the model, the schema's parse (which copies) for a credential store.
   */
  #create(name: CollectionName, record: object): unknown {
    if (!isCredential(name)) return this.collections[name].create(record as never)
    return this[name].create(collectionTable[name].schema.parse(record) as never)
  }
}

function isCredential(name: CollectionName): name is CredentialCollectionName {
  return 'credential' in collectionTable[name]
}

/**
 * A copy of a record: its fields are strings, numbers, `null` and arrays of strings.
 *
 * @example const copy = copyRecord(user) // copy.userGroups !== user.userGroups
 */
export function copyRecord<R extends object>(record: R): R {
  const copy = { ...record } as Record<string, unknown>
  for (const key in copy) {
    const value = copy[key]
    if (Array.isArray(value)) copy[key] = [...value]
  }
  return copy as R
}
