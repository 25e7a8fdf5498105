import * as z from 'zod'
import { fastParseOf } from '../api/fast-accept.ts'
import { afterReadyInput, timestampMs } from '../base/time.ts'
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
import {
  adoptStaged,
  PartitionedCollection,
  type StoredOf,
  stageRecords,
} from './partitioned-collection.ts'
import { type SignInTokenRecord, sameFieldValue, type WebViewSessionRecord } from './records.ts'
import { SecretFingerprints } from './secret-fingerprints.ts'
import { TimeOrder } from './time-order.ts'

/** How many records a load creates between two turns of the event loop. */
const loadSlice = 2048

/**
 * Each collection's parse at a load: zod's answer, a record its schema accepts copied by a check
 * derived from the schema (see `fastParseOf`). Derived at a collection's first load.
 */
const loadParses = new Map<CollectionName, (record: unknown) => object>()

function loadParseOf(name: CollectionName): (record: unknown) => object {
  const parse = loadParses.get(name) ?? fastParseOf(collectionTable[name].schema)
  loadParses.set(name, parse)
  return parse
}

/** The states {@link generated} marked: built by the mock's own typed code. */
const generatedStates = new WeakSet<object>()
/** The states whose every record is its schema's output: generated, or {@link checked}. */
const parsedStates = new WeakSet<object>()

/**
 * Marks `state` as built, every record of it, by the mock's own typed code from the schemas' types
 * (the seeded data): a load copies its records without running the schemas' check on them (see
 * docs/decisions/generated-records.md). A state with a record from anywhere else (a data file, a
 * caller) is never marked, and each of its records is checked; a state file's is {@link checked}.
 *
 * @example const state = generated(seededState())
 */
export function generated(state: MockState): MockState {
  generatedStates.add(state)
  parsedStates.add(state)
  return state
}

/**
 * Marks `state` as checked, every record of it, by its collection's schema, and made of the
 * schemas' output only (what a state file's read gives): a load stores its records without
 * checking them again.
 */
export function checked(state: MockState): MockState {
  parsedStates.add(state)
  return state
}

/** Whether {@link generated} marked `state`. */
export function isGenerated(state: Partial<MockState>): boolean {
  return generatedStates.has(state)
}

/**
 * The `@msw/data` collections that hold the model a test reads and seeds: organisations, API keys
 * (hashed), users, groups, learning paths, progress, certificates. A consumer may read them with
 * `@msw/data`'s query API and seed them with `create`. Each is partitioned (see
 * {@link PartitionedCollection}) so that a write costs the same at any size. Sign-in tokens and
 * web-view sessions are not among them: they live in stores of their own (see {@link Database}),
 * and `state()` lists them.
 *
 * @example
 * const archived = api.db.users.findMany((q) => q.where({ registrationStatus: 'archived' }))
 */
export function createCollections(): Collections {
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

/** A change of the operation under way, as {@link Database.undo} takes it back. */
type Logged = StateChange & {
  /** A record created by the operation (rather than changed in place). */
  created?: true
  /** The fields a change in place replaced, as they were. */
  before?: object
}

/** One operation's changes, measured: what a state file writes, and the state's size after them. */
export interface PendingChanges {
  /**
   * Each record written (its JSON) or removed (`json: null`), in the order they happened; none
   * when {@link Database.pending} was told that no store writes them.
   */
  writes: { collection: CollectionName; record: object; json: string | null }[]
  /** The JSON size of each record the changes touch once they are kept; 0 for one removed. */
  sizes: Map<object, number>
  /** The JSON size of every record once the changes are kept, in characters. */
  bytes: number
}

/** A record as collection `C` of `api.db` holds it (named, so that declarations can name it). */
type Stored<C extends ModelCollectionName> = StoredOf<RecordSchemaOf<C>>

/** A collection or a credential store, as the operations on every record use either. */
interface RecordHolder {
  create(record: never): unknown
  delete(record: never): unknown
  all(): object[]
  observe(observer: CollectionObserver<never>): void
}

/**
 * The collections and the credential stores, with the indexes the rules look records up by, so
 * that no lookup by `(orgId, id)`, key, token or user scans a collection. A reset builds a new
 * `Database` rather than clearing this one.
 */
export class Database {
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
  readonly signInTokensByExpiry = new TimeOrder(this.signInTokens, (r) => timestampMs(r.expiresAt))
  readonly webViewSessionsByUserId = new GroupIndex(this.webViewSessions, (r) => r.userId)
  readonly organisationStarts = new UniqueIndex<Stored<'organisationStarts'>>(
    this.collections.organisationStarts,
    (r) => r.orgId,
  )
  readonly organisationShapes = new UniqueIndex<Stored<'organisationShapes'>>(
    this.collections.organisationShapes,
    (r) => r.orgId,
  )
  readonly userShapes = new UniqueIndex<Stored<'userShapes'>>(
    this.collections.userShapes,
    (r) => r.userId,
  )
  readonly organisationLatencies = new UniqueIndex<Stored<'organisationLatencies'>>(
    this.collections.organisationLatencies,
    (r) => r.orgId,
  )
  readonly webViewSessionsByStart = new TimeOrder(this.webViewSessions, (r) =>
    timestampMs(r.createdAt),
  )
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
  /** The changes of the operation under way, oldest first (see {@link pending}). */
  #log: Logged[] = []
  /**
   * The changes of the operations held since the last {@link confirm}, oldest first, with the
   * size of each record they wrote and of the state as they were before them: what
   * {@link undoHeld} takes back when their commit fails.
   */
  #held: Logged[] = []
  readonly #heldSizes = new Map<object, number | undefined>()
  #heldBytes = 0
  /** Set while {@link undo} runs: what it does is not a change to take back. */
  #undoing = false
  /** Set while {@link load} places its records: they are the start, not a change. */
  #loading = false
  /**
   * The JSON size of each record measured since the load, in characters; a record loaded and
   * never changed since is measured when it first changes or leaves (see {@link #sizeOf}). A
   * `Map`, not a `WeakMap`: every record leaves through a logged change, which drops its entry,
   * and a `WeakMap` costs five times as much to change (a token comes and goes on every identify).
   */
  readonly #sizes = new Map<object, number>()
  /** The JSON size of every record, in characters: what `maxStateBytes` bounds. */
  #bytes = 0

  constructor() {
    for (const collection of collectionNames) {
      this.#holder(collection).observe({
        added: (record) => {
          if (this.#logging) this.#log.push({ collection, op: 'put', record, created: true })
        },
        removed: (record) => {
          if (this.#logging) this.#log.push({ collection, op: 'delete', record })
        },
      })
    }
  }

  /** The JSON size of every record kept, in characters (an operation under way aside). */
  get bytes(): number {
    return this.#bytes
  }

  /**
   * Changes `record` in place with `fields`: the way a rule changes a stored record, so that the
   * change is written to the state file and can be taken back. A field given the value it holds
   * already (a client sends the same profile on every sign-in) is left as it is, neither measured
   * nor taken back.
   */
  update<C extends keyof MockState>(
    collection: C,
    record: MockState[C][number],
    fields: Partial<MockState[C][number]>,
  ): void {
    const held = record as Record<string, unknown>
    const before: Record<string, unknown> = {}
    // Measured as it was, before the first change since the load.
    if (!this.#sizes.has(record)) this.#sizes.set(record, JSON.stringify(record).length)
    for (const field in fields) {
      const value = (fields as Record<string, unknown>)[field]
      if (sameFieldValue(held[field], value)) continue
      before[field] = held[field]
      held[field] = value
    }
    if (this.#logging) this.#log.push({ collection, op: 'put', record, before } as Logged)
  }

  /**
   * The changes of the operation under way, measured; {@link accept} or {@link undo} them next.
   * Without `writes` (no store writes them), a record changed in place once is measured by the
   * fields it changed, its JSON not built.
   */
  pending(writes = true): PendingChanges {
    let bytes = this.#bytes
    const sizes = new Map<object, number>()
    const written: PendingChanges['writes'] = []
    for (const { collection, op, record, before, created } of this.#log) {
      const seen = sizes.get(record)
      const old = seen ?? (created ? undefined : this.#sizeOf(record))
      let size = 0
      if (op === 'put') {
        const resized = writes || seen !== undefined ? undefined : resizedBy(record, before, old)
        const json = resized === undefined ? JSON.stringify(record) : undefined
        if (writes) written.push({ collection, record, json: json as string })
        size = resized ?? (json as string).length
      } else if (writes) written.push({ collection, record, json: null })
      bytes += size - (old ?? 0)
      sizes.set(record, size)
    }
    return { writes: written, sizes, bytes }
  }

  /**
   * The JSON size of `record`, held before the operation under way and not changed by it yet:
   * measured now if it was loaded and has not changed since.
   */
  #sizeOf(record: object): number {
    return this.#sizes.get(record) ?? JSON.stringify(record).length
  }

  /** Keeps the changes of the operation under way, measured by {@link pending}, for good. */
  accept({ sizes, bytes }: PendingChanges): void {
    // Not `for…of`: its entries are a new array each.
    sizes.forEach((size, record) => {
      if (size === 0) this.#sizes.delete(record)
      else this.#sizes.set(record, size)
    })
    this.#bytes = bytes
    this.#log = []
  }

  /**
   * Keeps the changes of the operation under way as {@link accept} does, but only until the
   * operations held so far are committed to a store: {@link confirm} then makes them final, and
   * {@link undoHeld} takes them all back.
   */
  hold(pending: PendingChanges): void {
    if (this.#held.length === 0) this.#heldBytes = this.#bytes
    for (const record of pending.sizes.keys()) {
      if (!this.#heldSizes.has(record)) this.#heldSizes.set(record, this.#sizes.get(record))
    }
    this.#held.push(...this.#log)
    this.accept(pending)
  }

  /** Makes final every operation held since the last confirm: their commit has returned. */
  confirm(): void {
    this.#held = []
    this.#heldSizes.clear()
  }

  /** Takes back every change of the operation under way: the records are as they were before it. */
  async undo(): Promise<void> {
    const log = this.#log
    this.#log = []
    await this.#takeBack(log)
  }

  /**
   * Takes back every operation held since the last {@link confirm} (and the one under way, if
   * any), the latest first: the records are as they were before the first of them.
   */
  async undoHeld(): Promise<void> {
    const log = [...this.#held, ...this.#log]
    for (const [record, size] of this.#heldSizes) {
      if (size === undefined) this.#sizes.delete(record)
      else this.#sizes.set(record, size)
    }
    if (this.#held.length > 0) this.#bytes = this.#heldBytes
    this.#log = []
    this.confirm()
    await this.#takeBack(log)
  }

  /** Takes back the changes of `log`, the latest first. */
  async #takeBack(log: Logged[]): Promise<void> {
    this.#undoing = true
    try {
      // A record removed and created again is a new object: later changes name the old one.
      const recreated = new Map<object, object>()
      for (const change of log.reverse()) {
        const collection = this.#holder(change.collection)
        const record = recreated.get(change.record) ?? change.record
        if (change.op === 'delete') {
          // A copy: `@msw/data` marks the records it stores, and a mark cannot be set twice.
          const copy = (await collection.create(copyOf(record) as never)) as object
          recreated.set(change.record, copy)
          const size = this.#sizes.get(change.record)
          this.#sizes.delete(change.record)
          if (size !== undefined) this.#sizes.set(copy, size)
        } else if (change.created) {
          collection.delete(record as never)
          this.#sizes.delete(record)
        } else Object.assign(record, change.before)
      }
    } finally {
      this.#undoing = false
    }
  }

  /** Whether a change now is one of the operation under way (not a load's, nor an undo's). */
  get #logging(): boolean {
    return !this.#undoing && !this.#loading
  }

  /**
   * Stores a copy of every record of `state`, each validated once by its collection's schema (the
   * parse is the copy; a record the check derived from the schema accepts is copied by that check,
   * any other is zod's to refuse) unless the mock's own code built the state ({@link generated})
   * or its schemas checked it already ({@link checked}): then its records are copied, or stored
   * themselves when the load `owns` the state (its caller keeps no reference to it). The records
   * of the model are staged: indexed, counted and readable when this resolves, then adopted into
   * `@msw/data` in the background ({@link adopted}), each object kept as it is.
   */
  async load(state: Partial<MockState>, { owns = false } = {}): Promise<void> {
    this.#loading = true
    try {
      await this.#place(state, owns)
    } finally {
      this.#loading = false
    }
    this.#log = []
    this.confirm()
    this.adopted = this.#adoptStaged()
  }

  async #place(state: Partial<MockState>, owns: boolean): Promise<void> {
    let loaded = 0
    const parsed = parsedStates.has(state)
    // A long load lets the event loop turn: a container's PID 1 honours SIGTERM only there.
    const turn = () => new Promise<void>((resolve) => afterReadyInput(resolve))
    for (const name of collectionNames) {
      let records: readonly object[] = state[name] ?? []
      const parse = !parsed ? loadParseOf(name) : owns ? undefined : copyOf
      if (parse) {
        const copies: object[] = []
        for (const record of records) {
          copies.push(parse(record))
          if (++loaded % loadSlice === 0) await turn()
        }
        records = copies
      }
      if (isCredential(name)) for (const record of records) this[name].create(record as never)
      else stageRecords(this.collections[name] as never, records as never)
      // Added up, no size kept for each (see `#sizeOf`).
      for (const record of records) {
        this.#bytes += JSON.stringify(record).length
        if (++loaded % loadSlice === 0) await turn()
      }
    }
  }

  /**
   * Resolves once every record {@link load} staged is in `@msw/data` (or {@link stopAdoption} has
   * stopped the work): from then on `api.db`'s hooks see every record as `@msw/data`'s.
   */
  adopted: Promise<void> = Promise.resolve()
  readonly #adoption = new AbortController()

  async #adoptStaged(): Promise<void> {
    for (const name of modelCollectionNames) {
      await adoptStaged(this.collections[name] as never, this.#adoption.signal)
    }
  }

  /** Stops the background adoption: a reset or a new load has replaced this database. */
  stopAdoption(): void {
    this.#adoption.abort()
  }

  /**
   * Creates a copy of every record of `state` as a change of the operation under way: written,
   * measured and taken back with it (an organisation created or reset at run time).
   */
  async add(state: Partial<MockState>): Promise<void> {
    for (const name of collectionNames) {
      for (const record of state[name] ?? []) await this.#create(name, copyOf(record))
    }
  }

  /** Every record, one array per collection: the stored objects themselves, not copies. */
  records(): MockState {
    return forEachCollection<MockState>((name) => this.#holder(name).all())
  }

  /**
   * Removes every record that belongs to user `userId` (the collections the table marks `ofUser`):
   * what a delete removes with the user.
   */
  removeRecordsOf(userId: string): void {
    for (const name of userCollectionNames) {
      const holder = this.#holder(name)
      for (const record of this.#byUser[name](userId)) holder.delete(record as never)
    }
  }

  /**
   * Removes organisation `orgId` and every record of it: its users with everything a delete
   * removes, and every record that carries its `orgId`. Scans each collection once: for the
   * controls that remove or reset one organisation, not for an API call.
   */
  removeOrganisation(orgId: string): void {
    for (const user of this.collections.users.all().filter((u) => u.orgId === orgId)) {
      this.removeRecordsOf(user.userId)
    }
    for (const name of collectionNames) {
      if (!hasOrgId(name)) continue
      const holder = this.#holder(name)
      for (const record of holder.all() as { orgId: string }[]) {
        if (record.orgId === orgId) holder.delete(record as never)
      }
    }
  }

  /** Where the records of collection `name` live: its `@msw/data` collection, or its store. */
  #holder(name: CollectionName): RecordHolder {
    return isCredential(name) ? this[name] : this.collections[name]
  }

  /**
   * Stores a copy of `record` in collection `name`, validated by its schema: `@msw/data`'s
   * `create` for the model, the schema's parse (which copies) for a credential store.
   */
  #create(name: CollectionName, record: object): unknown {
    if (!isCredential(name)) return this.collections[name].create(record as never)
    return this[name].create(collectionTable[name].schema.parse(record) as never)
  }

  /** A deep, plain copy of every record, one array per collection. */
  snapshot(): MockState {
    return structuredClone(this.records())
  }
}

/**
 * Whether every record of `state` is exactly what its collection's schema parses it to (the same
 * JSON, keys in the same order): what the build checks of the prebuilt default data before a mock
 * loads it as {@link generated}. Parses every record once.
 */
export function isParsedState(state: Partial<MockState>): boolean {
  return collectionNames.every((name) =>
    (state[name] ?? []).every(
      (record) =>
        JSON.stringify(collectionTable[name].schema.parse(record)) === JSON.stringify(record),
    ),
  )
}

function isCredential(name: CollectionName): name is CredentialCollectionName {
  return 'credential' in collectionTable[name]
}

/**
 * The JSON size of `record` changed in place from `before` (the fields it replaced, as they
 * were), when it was `old` characters: `old` plus what each changed value's JSON adds, a value
 * left the same adding nothing. `undefined` when that is not exact (no size known, a change in
 * place unknown, a field that is or was absent from the JSON): then the JSON is measured.
 */
function resizedBy(record: object, before: object | undefined, old: number | undefined) {
  if (before === undefined || old === undefined) return undefined
  let size = old
  for (const field in before) {
    const was = (before as Record<string, unknown>)[field]
    const now = (record as Record<string, unknown>)[field]
    if (now === was && was !== undefined) continue
    const [from, to] = [JSON.stringify(was), JSON.stringify(now)] as (string | undefined)[]
    if (from === undefined || to === undefined) return undefined
    size += to.length - from.length
  }
  return size
}

/** A copy of a record: its fields are strings, numbers, `null` and arrays of strings. */
function copyOf<R extends object>(record: R): R {
  const copy = { ...record } as Record<string, unknown>
  for (const key in copy) {
    const value = copy[key]
    if (Array.isArray(value)) copy[key] = [...value]
  }
  return copy as R
}
