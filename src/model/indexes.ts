import type { Collection } from '@msw/data'
import type { z } from 'zod'

/** A record as a collection holds it: `R` with `@msw/data`'s internal keys. */
export type StoredRecord<R> = ReturnType<Collection<z.ZodType<R>>['all']>[number]

/**
 * A lookup by key that never scans the collection. It follows the collection's `create` and
 * `delete` hooks, so records a consumer creates or deletes through `@msw/data` are indexed too.
 * (The mock changes records in place; `@msw/data`'s `update` replaces the record object, so it is
 * not a way to change the model.)
 */
export class UniqueIndex<R> {
  readonly #map = new Map<string, StoredRecord<R>>()

  constructor(collection: Collection<z.ZodType<R>>, keyOf: (record: R) => string) {
    collection.hooks.on('create', (event) => {
      const record = event.data.record as StoredRecord<R>
      this.#map.set(keyOf(record), record)
    })
    collection.hooks.on('delete', (event) => {
      const record = event.data.deletedRecord as StoredRecord<R>
      const key = keyOf(record)
      if (this.#map.get(key) === record) this.#map.delete(key)
    })
  }

  get(key: string): StoredRecord<R> | undefined {
    return this.#map.get(key)
  }

  get size(): number {
    return this.#map.size
  }
}

/** Like {@link UniqueIndex}, for a key that many records share (a user's tokens, say). */
export class GroupIndex<R> {
  readonly #map = new Map<string, Set<StoredRecord<R>>>()

  constructor(collection: Collection<z.ZodType<R>>, keyOf: (record: R) => string) {
    collection.hooks.on('create', (event) => {
      const record = event.data.record as StoredRecord<R>
      const key = keyOf(record)
      const group = this.#map.get(key)
      if (group) group.add(record)
      else this.#map.set(key, new Set([record]))
    })
    collection.hooks.on('delete', (event) => {
      const record = event.data.deletedRecord as StoredRecord<R>
      const key = keyOf(record)
      const group = this.#map.get(key)
      group?.delete(record)
      if (group?.size === 0) this.#map.delete(key)
    })
  }

  get(key: string): ReadonlySet<StoredRecord<R>> {
    return this.#map.get(key) ?? emptySet
  }
}

const emptySet: ReadonlySet<never> = new Set()

/** The key of a record that belongs to an organisation. */
export function orgKey(orgId: string, id: string): string {
  return `${orgId}\u0000${id}`
}
