import { Collection, OperationError, Query } from '@msw/data'
import { createFromSerializedRecord } from '@msw/data/extensions/persist'
import type { z } from 'zod'
import { flatString } from './flat-string.ts'
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
export const defaultPartitionSize = 1024

const strictQueryWithoutResults = 'STRICT_QUERY_WITHOUT_RESULTS' as ConstructorParameters<
  typeof OperationError
>[1]

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
 * every record it stores went through `@msw/data`'s own `create`, validated by the schema.
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
  #partitions: Collection<S>[] = []
  #partitionOf = new WeakMap<object, Collection<S>>()
  #size = 0
  /** A record `update` replaced → the record that replaced it: what a stale reference means. */
  #successors = new WeakMap<object, StoredOf<S>>()
  readonly #observers: CollectionObserver<StoredOf<S>>[] = []

  constructor(options: { schema: S; partitionSize?: number }) {
    // The base collection stays empty: every method below works on the partitions. Its own
    // methods still serve to raise `@msw/data`'s exact errors for an empty result.
    super({ schema: options.schema })
    this.#partitionSize = options.partitionSize ?? defaultPartitionSize
    this.#schema = options.schema
  }

  /** Tells `observer` of every record created, deleted or replaced from now on. */
  observe(observer: CollectionObserver<StoredOf<S>>): void {
    this.#observers.push(observer)
  }

  /** How many partitions hold the records (for tests and benchmarks). */
  get partitionCount(): number {
    return this.#partitions.length
  }

  override async create(initialValues: InputOf<S>): Promise<StoredOf<S>> {
    let partition = this.#partitions.at(-1)
    if (!partition || partition.count() >= this.#partitionSize) {
      partition = new Collection({ schema: this.#schema })
      partition.hooks = this.hooks
      this.#partitions.push(partition)
    }
    // `@msw/data` draws a primary key with `crypto.randomUUID()`, which Node builds as a tree of
    // 16 string pieces (about 500 bytes, 50 MB at 100,000 users); the persist extension's
    // `createFromSerializedRecord` (its public way to create a record with a known key, still
    // through `create` and the schema) takes one drawn the same way and flattened (70 bytes).
    const record = (await createFromSerializedRecord(partition, {
      ...(initialValues as object),
      __metadata__: { primaryKey: flatString(crypto.randomUUID()), relations: [] },
    })) as StoredOf<S>
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
      const record = query ? partition.findFirst(query) : partition.findFirst()
      if (record) return record as Result
    }
    return super.findFirst(query, options) as Result
  }

  override findMany(predicate?: PredicateOf<S>, options?: FindManyOptions<S>): StoredOf<S>[] {
    const query = predicate === undefined ? new Query<StoredOf<S>>(() => true) : toQuery(predicate)
    const skip = options?.skip
    if (skip !== undefined && !(Number.isInteger(skip) && skip >= 0)) {
      return super.findMany(query, { skip }) // throws `@msw/data`'s own error
    }
    const results = options ? this.#paginate(query, options) : this.#matching(query)
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
    const partition = record && this.#partitionOf.get(record)
    if (!record || !partition) {
      if (options.strict) throw noResults('update', 'no record found')
      return undefined as Result
    }
    const next = await partition.update(record, { data: options.data })
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
    if (this.#partitions.length === 1) return [...(this.#partitions[0]?.all() ?? [])]
    return this.#partitions.flatMap((partition) => partition.all())
  }

  override clear(): void {
    const records = this.all()
    for (const partition of this.#partitions) partition.clear()
    this.#partitions = []
    this.#partitionOf = new WeakMap()
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
    const before = partition.count()
    partition.delete(record)
    // A `delete` hook may prevent the deletion: the record then stays, and stays indexed.
    if (partition.count() === before) return
    this.#partitionOf.delete(record)
    this.#size--
    if (partition.count() === 0 && partition !== this.#partitions.at(-1)) {
      this.#partitions.splice(this.#partitions.indexOf(partition), 1)
    }
    for (const observer of this.#observers) observer.removed(record)
  }

  #matching(query: QueryOf<S>): StoredOf<S>[] {
    const results: StoredOf<S>[] = []
    for (const partition of this.#partitions) {
      for (const record of partition.all()) if (query.test(record)) results.push(record)
    }
    return results
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
