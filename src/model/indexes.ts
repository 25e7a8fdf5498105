/** Told of every record that enters or leaves a collection or store, synchronously. */
export interface CollectionObserver<R> {
  added(record: R): void
  removed(record: R): void
}

/**
 * Records that tell of each one that enters or leaves: a partitioned `@msw/data` collection, or
 * the store of sign-in tokens or web-view sessions. The indexes below keep up with either.
 */
export interface ObservedRecords<R> {
  observe(observer: CollectionObserver<R>): void
}

/**
 * A lookup by key that never scans the collection. The collection tells it of every record
 * created, deleted or replaced (by `update`) through it, a consumer's included.
 */
export class UniqueIndex<R> {
  readonly #map = new Map<string, R>()

  constructor(collection: ObservedRecords<R>, keyOf: (record: R) => string) {
    collection.observe({
      added: (record) => {
        this.#map.set(keyOf(record), record)
      },
      removed: (record) => {
        const key = keyOf(record)
        if (this.#map.get(key) === record) this.#map.delete(key)
      },
    })
  }

  get(key: string): R | undefined {
    return this.#map.get(key)
  }

  get size(): number {
    return this.#map.size
  }
}

/**
 * Like {@link UniqueIndex}, for records known by an id within their organisation (a user, a
 * group, a learning path): one map per organisation, keyed by the record's own id, so that a
 * lookup builds no key. A key joined from the two (as a state file's is) would be a new string to
 * build, flatten and hash on every lookup, and a copy of the id held besides the record's.
 */
export class OrgIndex<R extends { orgId: string }> {
  readonly #byOrg = new Map<string, Map<string, R>>()

  constructor(collection: ObservedRecords<R>, idOf: (record: R) => string) {
    collection.observe({
      added: (record) => {
        const { orgId } = record
        let records = this.#byOrg.get(orgId)
        if (records === undefined) {
          records = new Map()
          this.#byOrg.set(orgId, records)
        }
        records.set(idOf(record), record)
      },
      removed: (record) => {
        const records = this.#byOrg.get(record.orgId)
        const id = idOf(record)
        if (records?.get(id) !== record) return
        records.delete(id)
        if (records.size === 0) this.#byOrg.delete(record.orgId)
      },
    })
  }

  /** The record of organisation `orgId` whose id is `id`, if any. */
  get(orgId: string, id: string): R | undefined {
    return this.#byOrg.get(orgId)?.get(id)
  }

  /** The records of organisation `orgId`, in the order they were added. */
  of(orgId: string): R[] {
    return [...(this.#byOrg.get(orgId)?.values() ?? [])]
  }

  /** How many records organisation `orgId` has. */
  count(orgId: string): number {
    return this.#byOrg.get(orgId)?.size ?? 0
  }

  /** How many records there are, every organisation's: counted when asked, for tests and tools. */
  get size(): number {
    let size = 0
    for (const records of this.#byOrg.values()) size += records.size
    return size
  }
}

/**
 * Like {@link UniqueIndex}, for a key that many records share (a user's tokens, say). A key with
 * one record keeps the record itself: most users have one certificate, and a `Set` costs 200 bytes.
 */
export class GroupIndex<R> {
  readonly #map = new Map<string, R | Set<R>>()

  constructor(collection: ObservedRecords<R>, keyOf: (record: R) => string) {
    collection.observe({
      added: (record) => {
        const key = keyOf(record)
        const group = this.#map.get(key)
        if (group === undefined) this.#map.set(key, record)
        else if (group instanceof Set) group.add(record)
        else this.#map.set(key, new Set([group, record]))
      },
      removed: (record) => {
        const key = keyOf(record)
        const group = this.#map.get(key)
        if (group === record) this.#map.delete(key)
        else if (group instanceof Set) {
          group.delete(record)
          if (group.size === 0) this.#map.delete(key)
        }
      },
    })
  }

  /** The records of `key`, as a new array (a rule may delete them while going through it). */
  get(key: string): R[] {
    const group = this.#map.get(key)
    if (group === undefined) return []
    return group instanceof Set ? [...group] : [group]
  }

  /** How many records share `key`, without copying them. */
  count(key: string): number {
    const group = this.#map.get(key)
    if (group === undefined) return 0
    return group instanceof Set ? group.size : 1
  }
}
