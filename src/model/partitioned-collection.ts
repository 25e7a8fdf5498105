import { Collection, OperationError, Query } from '@msw/data'
import { createFromSerializedRecord, deserializeRecord } from '@msw/data/extensions/persist'
import type * as z from 'zod'
import { afterReadyInput } from '../base/time.ts'
import type { CollectionObserver } from './indexes.ts'

/** A record as a collection of schema `S` holds it: `S`'s output with `@msw/data`'s internal keys. */
export type StoredOf<S extends z.ZodType> = ReturnType<Collection<S>['all']>[number]

type InputOf<S extends z.ZodType> = Parameters<Collection<S>['create']>[0]
type QueryOf<S extends z.ZodType> = Query<StoredOf<S>>
type PredicateOf<S extends z.ZodType> = ((query: QueryOf<S>) => Query<unknown>) | QueryOf<S>
type FindManyOptions<S extends z.ZodType> = NonNullable<Parameters<Collection<S>['findMany']>[1]>
type UpdateManyOptions<S extends z.ZodType> = Parameters<Collection<S>['updateMany']>[1]
type DeleteManyOptions<S extends z.ZodType> = NonNullable<
  Parameters<Collection<S>['deleteMany']>[1]
>
type UpdateData<S extends z.ZodType> = Parameters<Collection<S>['update']>[1]['data']
type OrderBy<S extends z.ZodType> = NonNullable<FindManyOptions<S>['orderBy']>

/**
 * How many records one partition holds before the next one opens. `@msw/data` finds a record to
 * delete or update by scanning its array (and splices it), so a partition's size bounds the cost
 * of every write; a full scan of the collection pays a little per partition.
 */
const defaultPartitionSize = 1024

const strictQueryWithoutResults = 'STRICT_QUERY_WITHOUT_RESULTS' as ConstructorParameters<
  typeof OperationError
>[1]

/**
 * A partition: an `@msw/data` collection, or (after {@link stageRecords}, until its adoption)
 * the same records in a plain array, already validated, waiting to be adopted into one.
 */
class Partition<S extends z.ZodType> {
  collection: Collection<S> | undefined
  staged: StoredOf<S>[] | undefined
  /** The adoption under way, once begun (by the background work or an `update`). */
  adoption: Promise<void> | undefined

  constructor(collection: Collection<S> | undefined, staged?: StoredOf<S>[]) {
    this.collection = collection
    this.staged = staged
  }

  /** Its records in order: the collection's own array, or the staged one (not a copy). */
  records(): StoredOf<S>[] {
    return this.collection ? this.collection.all() : (this.staged ?? [])
  }

  count(): number {
    return this.collection ? this.collection.count() : (this.staged?.length ?? 0)
  }
}

/** Set by the class's static block: the functions below reach its private members. */
let internals: {
  stage(collection: PartitionedCollection<z.ZodType>, records: readonly object[]): void
  adoptStaged(collection: PartitionedCollection<z.ZodType>, signal: AbortSignal): Promise<void>
}

/**
 * An `@msw/data` collection whose records live in a chain of smaller `@msw/data` collections
 * (partitions, filled in insertion order), so that deleting or updating one record costs the same
 * at 100,000 records as at 1,000. It is a `Collection`, with the same query API (`findFirst`,
 * `findMany`, `count`, `all`, `create`, `update`, `delete`, …) over every partition, in insertion
 * order, and one `hooks` emitter that every partition reports to.
 *
 * Records enter and leave only through it, which lets it keep indexes ({@link observe}) without a
 * scan, and tell them when `update` replaces a record's object. It knows its records by identity
 * (and a replaced record by what replaced it), never by `@msw/data`'s internal primary key, and
 * every record it stores goes through `@msw/data`'s own `create`, validated by the schema. A large
 * load stages its records first ({@link stageRecords}: validated, indexed and readable at once)
 * and {@link adoptStaged} takes them into `@msw/data` partitions later, each object kept as it is.
 *
 * @example
 * const users = new PartitionedCollection({ schema: userRecordSchema })
 * await users.create(user)
 * users.findMany((q) => q.where({ registrationStatus: 'archived' }))
 */
export class PartitionedCollection<S extends z.ZodType> extends Collection<S> {
  readonly #partitionSize: number
  readonly #schema: S
  /** Non-empty partitions in insertion order, and the one being filled last (possibly empty). */
  #partitions: Partition<S>[] = []
  /**
   * Each record's partition: a `Map`, as every way out deletes its record's entry, and the
   * collector walks a `WeakMap` of a large load's records again at every full collection.
   */
  #partitionOf = new Map<object, Partition<S>>()
  #size = 0
  /** A record `update` replaced → the record that replaced it: what a stale reference means. */
  #successors = new WeakMap<object, StoredOf<S>>()
  readonly #observers: CollectionObserver<StoredOf<S>>[] = []
  /** The record an adoption hands to a partition's `create`, set only while that call runs. */
  #adopting: object | undefined

  static {
    internals = {
      stage: (collection, records) => collection.#stage(records),
      adoptStaged: (collection, signal) => collection.#adoptStaged(signal),
    }
  }

  constructor(options: { schema: S; partitionSize?: number }) {
    // The base collection stays empty: every method below works on the partitions. Its own
    // methods still serve to raise `@msw/data`'s exact errors for an empty result.
    super({ schema: options.schema })
    this.#partitionSize = options.partitionSize ?? defaultPartitionSize
    // The partitions' schema is the collection's, except during an adoption: the record adopted,
    // already validated by that schema, is the validation's value as it is.
    const validate = options.schema['~standard'].validate
    this.#schema = {
      ...options.schema,
      '~standard': {
        ...options.schema['~standard'],
        validate: (value: unknown) =>
          this.#adopting === undefined ? validate(value) : { value: this.#adopting },
      },
    } as unknown as S
  }

  /** Tells `observer` of every record created, deleted or replaced from now on. */
  observe(observer: CollectionObserver<StoredOf<S>>): void {
    this.#observers.push(observer)
  }

  /** How many partitions hold the records (for tests and benchmarks). */
  get partitionCount(): number {
    return this.#partitions.length
  }

  /** How many records wait in staged partitions for their adoption (for tests and benchmarks). */
  get stagedCount(): number {
    let staged = 0
    for (const partition of this.#partitions) staged += partition.staged?.length ?? 0
    return staged
  }

  override async create(initialValues: InputOf<S>): Promise<StoredOf<S>> {
    const partition = this.#lastPartition()
    // `@msw/data` draws a primary key with `crypto.randomUUID()`, which Node builds as a tree of
    // 16 string pieces (about 500 bytes, 50 MB at 100,000 users); the persist extension's
    // `createFromSerializedRecord` (its public way to create a record with a known key, still
    // through `create` and the schema) takes a short one of ours instead.
    const record = (await createFromSerializedRecord(partition.collection as Collection<S>, {
      ...(initialValues as object),
      __metadata__: { primaryKey: newPrimaryKey(), relations: [] },
    })) as StoredOf<S>
    return this.#added(record, partition)
  }

  /**
   * Stores `record` itself, already validated by the schema, in `collection` through its own
   * `create`: the schema's validation answers with the record, and the primary key comes on a
   * small carrier (the persist extension's `deserializeRecord` of a key), so `create` copies
   * neither and no `delete` touches the stored object.
   */
  #adoptInto(collection: Collection<S>, record: object): Promise<StoredOf<S>> {
    const carrier = deserializeRecord({
      __metadata__: { primaryKey: newPrimaryKey(), relations: [] },
    })
    this.#adopting = record
    try {
      // `create` validates before its first `await`: the slot is read there and only there.
      return collection.create(carrier as never) as Promise<StoredOf<S>>
    } finally {
      this.#adopting = undefined
    }
  }

  /** Places `records` (validated, the same objects) in staged partitions, indexed at once. */
  #stage(records: readonly object[]): void {
    for (let start = 0; start < records.length; start += this.#partitionSize) {
      const chunk = records.slice(start, start + this.#partitionSize) as StoredOf<S>[]
      const partition = new Partition<S>(undefined, chunk)
      this.#partitions.push(partition)
      for (const record of chunk) this.#added(record, partition)
    }
  }

  /**
   * Adopts every staged partition into an `@msw/data` one, oldest first, one partition a turn of
   * the event loop, until done or `signal` aborts (a reset replaced the records).
   */
  async #adoptStaged(signal: AbortSignal): Promise<void> {
    for (const partition of [...this.#partitions]) {
      if (signal.aborted) return
      if (!partition.staged || !this.#partitions.includes(partition)) continue
      await this.#adoptPartition(partition)
      await new Promise<void>((resolve) => afterReadyInput(resolve))
    }
  }

  /**
   * Adopts a staged partition: its records, each object as it is, go into a new `@msw/data`
   * collection, which replaces the array once all are in (a record deleted meanwhile is left out).
   * The collection reports to the shared `hooks` only from then on: an adoption is no `create`.
   */
  #adoptPartition(partition: Partition<S>): Promise<void> {
    partition.adoption ??= (async () => {
      const collection = new Collection({ schema: this.#schema })
      for (const record of [...(partition.staged ?? [])]) {
        if (this.#partitionOf.get(record) === partition) await this.#adoptInto(collection, record)
      }
      for (const record of [...collection.all()]) {
        if (this.#partitionOf.get(record) !== partition) collection.delete(record)
      }
      collection.hooks = this.hooks
      partition.collection = collection
      partition.staged = undefined
    })()
    return partition.adoption
  }

  #lastPartition(): Partition<S> {
    let partition = this.#partitions.at(-1)
    if (!partition?.collection || partition.count() >= this.#partitionSize) {
      const collection = new Collection({ schema: this.#schema })
      collection.hooks = this.hooks
      partition = new Partition(collection)
      this.#partitions.push(partition)
    }
    return partition
  }

  #added(record: StoredOf<S>, partition: Partition<S>): StoredOf<S> {
    this.#partitionOf.set(record, partition)
    this.#size++
    for (const observer of this.#observers) observer.added(record)
    return record
  }

  override findFirst<Strict extends boolean>(
    predicate?: PredicateOf<S>,
    options?: { strict?: Strict },
  ): Strict extends true ? StoredOf<S> : StoredOf<S> | undefined {
    type Result = Strict extends true ? StoredOf<S> : StoredOf<S> | undefined
    const query = predicate === undefined ? undefined : toQuery(predicate)
    for (const partition of this.#partitions) {
      for (const record of partition.records()) {
        if (!query || query.test(record)) return record as Result
      }
    }
    return super.findFirst(query, options) as Result
  }

  override findMany(predicate?: PredicateOf<S>, options?: FindManyOptions<S>): StoredOf<S>[] {
    const query = predicate === undefined ? new Query<StoredOf<S>>(() => true) : toQuery(predicate)
    const skip = options?.skip
    if (skip !== undefined && !(Number.isInteger(skip) && skip >= 0)) {
      return super.findMany(query, { skip }) // throws `@msw/data`'s own error
    }
    const results = this.#paginate(query, options ?? {})
    if (options?.strict && results.length === 0) return super.findMany(query, options)
    if (options?.orderBy) sortRecords(results, options.orderBy)
    return results
  }

  override async update<Strict extends boolean>(
    predicate: PredicateOf<S> | StoredOf<S>,
    options: { data: UpdateData<S>; strict?: Strict },
  ): Promise<Strict extends true ? StoredOf<S> : StoredOf<S> | undefined> {
    type Result = Strict extends true ? StoredOf<S> : StoredOf<S> | undefined
    const record = isQuery<S>(predicate) ? this.findFirst(predicate) : this.#current(predicate)
    let partition = record && this.#partitionOf.get(record)
    if (record && partition && !partition.collection) {
      // A staged record is adopted (with its partition) before `@msw/data` updates it.
      await this.#adoptPartition(partition)
      partition = this.#partitionOf.get(record)
    }
    const collection = partition?.collection
    if (!record || !partition || !collection) {
      if (options.strict) throw noResults('update', 'no record found')
      return undefined as Result
    }
    const next = await collection.update(record, { data: options.data })
    if (next && next !== record) {
      this.#partitionOf.delete(record)
      this.#partitionOf.set(next, partition)
      this.#successors.set(record, next)
      for (const observer of this.#observers) {
        observer.removed(record)
        observer.added(next)
      }
    }
    return next as Result
  }

  override async updateMany(
    predicate: PredicateOf<S>,
    options: UpdateManyOptions<S>,
  ): Promise<StoredOf<S>[]> {
    const records = this.findMany(predicate)
    if (records.length === 0) {
      if (options.strict) throw noResults('updateMany', 'no records found')
      return []
    }
    const updated: StoredOf<S>[] = []
    for (const record of records) {
      const next = await this.update(record, { data: options.data })
      if (next) updated.push(next)
    }
    if (options.orderBy) sortRecords(updated, options.orderBy)
    return updated
  }

  override delete<Strict extends boolean>(
    predicate: PredicateOf<S> | StoredOf<S>,
    options?: { strict?: Strict },
  ): Strict extends true ? StoredOf<S> : StoredOf<S> | undefined {
    type Result = Strict extends true ? StoredOf<S> : StoredOf<S> | undefined
    if (!isQuery<S>(predicate)) {
      const record = this.#current(predicate)
      if (record) this.#remove(record)
      return predicate as Result
    }
    const record = this.findFirst(predicate)
    if (!record) {
      if (options?.strict) throw noResults('delete', 'no record found')
      return undefined as Result
    }
    this.#remove(record)
    return record as Result
  }

  override deleteMany(predicate: PredicateOf<S>, options?: DeleteManyOptions<S>): StoredOf<S>[] {
    const records = this.findMany(predicate)
    for (let i = records.length - 1; i >= 0; i--) this.#remove(records[i] as StoredOf<S>)
    if (records.length === 0 && options?.strict) throw noResults('deleteMany', 'no records found')
    if (options?.orderBy) sortRecords(records, options.orderBy)
    return records
  }

  override count(): number {
    return this.#size
  }

  /** Every record, in insertion order: a new array (the library returns its own). */
  override all(): StoredOf<S>[] {
    return this.#partitions.flatMap((partition) => partition.records())
  }

  override clear(): void {
    const records = this.all()
    for (const partition of this.#partitions) partition.collection?.clear()
    this.#partitions = []
    this.#partitionOf = new Map()
    this.#successors = new WeakMap()
    this.#size = 0
    for (const record of records) {
      for (const observer of this.#observers) observer.removed(record)
    }
  }

  override defineRelations(): never {
    throw new Error('Relations are not supported on the mock’s partitioned collections.')
  }

  /**
   * The record this collection holds for `record`: itself, or (for a reference kept across an
   * `update` that replaced it) the record that replaced it.
   */
  #current(record: StoredOf<S>): StoredOf<S> | undefined {
    let current: StoredOf<S> | undefined = record
    while (current && !this.#partitionOf.has(current)) current = this.#successors.get(current)
    return current
  }

  #remove(record: StoredOf<S>): void {
    const partition = this.#partitionOf.get(record)
    if (!partition) return
    if (partition.collection) {
      const before = partition.count()
      partition.collection.delete(record)
      // A `delete` hook may prevent the deletion: the record then stays, and stays indexed.
      if (partition.count() === before) return
    } else partition.staged?.splice(partition.staged.indexOf(record), 1)
    this.#partitionOf.delete(record)
    this.#size--
    if (partition.count() === 0 && partition !== this.#partitions.at(-1)) {
      this.#partitions.splice(this.#partitions.indexOf(partition), 1)
    }
    for (const observer of this.#observers) observer.removed(record)
  }

  /** `@msw/data`'s pagination (`take`, `skip`, `cursor`), over every partition in order. */
  #paginate(query: QueryOf<S>, options: FindManyOptions<S>): StoredOf<S>[] {
    const { take, skip, cursor } = options
    const records = this.all()
    const shouldTake = Math.abs(take ?? Number.POSITIVE_INFINITY)
    const delta = take && take < 0 ? -1 : 1
    let start = delta === 1 ? 0 : records.length - 1
    const end = delta === 1 ? records.length : -1
    if (cursor != null) {
      start = records.indexOf(this.#current(cursor) as StoredOf<S>)
      if (start === -1) return []
    }
    const results: StoredOf<S>[] = []
    let skipped = 0
    // The library's loop as it is: it checks `take` after each record, so `take: 0` still
    // returns a first matching record.
    for (let i = start; i !== end; i += delta) {
      const record = records[i]
      if (record != null && query.test(record)) {
        if (skip != null && skipped < skip) {
          skipped++
          continue
        }
        results.push(record)
      }
      if (results.length >= shouldTake) break
    }
    return results
  }
}

/**
 * Places `records`, each just validated with the collection's schema (its output, owned by the
 * collection from now on), in staged partitions: counted, indexed and read like any record at
 * once, the same objects, then adopted into `@msw/data` by {@link adoptStaged} (an `update`
 * adopts its record's partition first). What a large load uses; not part of `api.db`.
 *
 * @example
 * stageRecords(users, records.map((r) => userRecordSchema.parse(r)))
 * await adoptStaged(users, new AbortController().signal)
 */
export function stageRecords<S extends z.ZodType>(
  collection: PartitionedCollection<S>,
  records: readonly z.output<S>[],
): void {
  internals.stage(collection as never, records as readonly object[])
}

/**
 * Adopts every staged record of `collection` into `@msw/data`, one partition a turn of the event
 * loop (each object kept: indexes and references stay valid), until done or `signal` aborts.
 *
 * @example
 * await adoptStaged(users, controller.signal)
 */
export function adoptStaged<S extends z.ZodType>(
  collection: PartitionedCollection<S>,
  signal: AbortSignal,
): Promise<void> {
  return internals.adoptStaged(collection as never, signal)
}

let lastPrimaryKey = 0

/**
 * A primary key no other record of the process has: `@msw/data` compares keys only within a
 * collection, to find the record it updates or deletes (see `create`).
 */
function newPrimaryKey(): string {
  return String(++lastPrimaryKey)
}

function isQuery<S extends z.ZodType>(
  predicate: PredicateOf<S> | StoredOf<S>,
): predicate is PredicateOf<S> {
  return typeof predicate === 'function' || predicate instanceof Query
}

function toQuery<T>(predicate: ((query: Query<T>) => Query<unknown>) | Query<T>): Query<T> {
  return predicate instanceof Query ? predicate : (predicate(new Query<T>()) as Query<T>)
}

function noResults(operation: string, what: string): OperationError {
  return new OperationError(
    `Failed to execute "${operation}" on collection: ${what} matching the query`,
    strictQueryWithoutResults,
  )
}

/** `@msw/data`'s `orderBy`: criteria in order, each a property path and a direction. */
function sortRecords<S extends z.ZodType>(records: StoredOf<S>[], orderBy: OrderBy<S>): void {
  const criteria = (Array.isArray(orderBy) ? orderBy : [orderBy]).flatMap((entry) =>
    deepEntries(entry as Record<string, unknown>, []),
  )
  records.sort((left, right) => {
    for (const [path, direction] of criteria) {
      const a = valueAt(left, path) as number
      const b = valueAt(right, path) as number
      if (a > b) return direction === 'asc' ? 1 : -1
      if (a < b) return direction === 'asc' ? -1 : 1
    }
    return 0
  })
}

function deepEntries(source: Record<string, unknown>, path: string[]): Array<[string[], unknown]> {
  return Object.entries(source).flatMap(([key, value]) =>
    isPlainObject(value)
      ? deepEntries(value, [...path, key])
      : [[[...path, key], value] as [string[], unknown]],
  )
}

function valueAt(record: unknown, path: string[]): unknown {
  let value = record
  for (const key of path) value = (value as Record<string, unknown> | null | undefined)?.[key]
  return value
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}
