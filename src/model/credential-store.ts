import type { CollectionObserver, ObservedRecords } from './indexes.ts'

/**
 * The sign-in tokens or the web-view sessions of a mock: short-lived credentials, kept in a map by
 * the hash of their secret (never the secret) rather than in an `@msw/data` collection
 * (docs/decisions/credential-store.md). A record is stored as the object given, without a copy or
 * a validation: the rules build it whole, and a state to load is parsed by its schema first. What
 * the record carries besides its hash (its user, its expiry order) is kept by the indexes that
 * observe the store, as they observe a collection.
 *
 * @example
 * const tokens = new CredentialStore<SignInTokenRecord>((token) => token.tokenHash)
 * tokens.create({ tokenHash, userId, orgId, issuedAt, expiresAt, redeemedAt: null })
 * tokens.get(tokenHash) // the record
 */
export class CredentialStore<R extends object> implements ObservedRecords<R> {
  /** The records by their hash, in the order they were created. */
  readonly #byHash = new Map<string, R>()
  readonly #observers: CollectionObserver<R>[] = []
  readonly #hashOf: (record: R) => string

  constructor(hashOf: (record: R) => string) {
    this.#hashOf = hashOf
  }

  /** Tells `observer` of every record created or deleted from now on. */
  observe(observer: CollectionObserver<R>): void {
    this.#observers.push(observer)
  }

  /** The record whose secret has SHA-256 `hash`, if held. */
  get(hash: string): R | undefined {
    return this.#byHash.get(hash)
  }

  get size(): number {
    return this.#byHash.size
  }

  /** Keeps `record` itself; one held under the same hash is deleted first. */
  create(record: R): R {
    const hash = this.#hashOf(record)
    const held = this.#byHash.get(hash)
    if (held) this.delete(held)
    // The hash function and `JSON.parse` make the hash flat already: no flattening here.
    this.#byHash.set(hash, record)
    for (const observer of this.#observers) observer.added(record)
    return record
  }

  /** Deletes `record` if it is the one held under its hash. */
  delete(record: R): void {
    const hash = this.#hashOf(record)
    if (this.#byHash.get(hash) !== record) return
    this.#byHash.delete(hash)
    for (const observer of this.#observers) observer.removed(record)
  }

  /** Every record, oldest first: a new array. */
  all(): R[] {
    return [...this.#byHash.values()]
  }
}
