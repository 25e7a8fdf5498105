/**
 * A ring buffer that keeps the newest `capacity` entries: the journal of API calls, and the
 * webhook deliveries.
 */
export class RingBuffer<T> {
  readonly #entries: (T | undefined)[] = []
  readonly #capacity: number
  /** Where the oldest entry is. */
  #head = 0
  #size = 0

  constructor(capacity: number) {
    this.#capacity = capacity
  }

  /** How many entries it holds. */
  get size(): number {
    return this.#size
  }

  /** Adds `entry`; returns the oldest entry it dropped to make room, if it dropped one. */
  add(entry: T): T | undefined {
    const dropped = this.#size === this.#capacity ? this.shift() : undefined
    const at = (this.#head + this.#size) % this.#capacity
    if (at === this.#entries.length) this.#entries.push(entry)
    else this.#entries[at] = entry
    this.#size++
    return dropped
  }

  /** Drops the oldest entry and returns it; `undefined` when empty. */
  shift(): T | undefined {
    if (this.#size === 0) return undefined
    const oldest = this.#entries[this.#head]
    this.#entries[this.#head] = undefined
    this.#head = (this.#head + 1) % this.#capacity
    this.#size--
    return oldest
  }

  /** The entries, oldest first. */
  list(): T[] {
    const entries: T[] = []
    for (let i = 0; i < this.#size; i++) {
      entries.push(this.#entries[(this.#head + i) % this.#capacity] as T)
    }
    return entries
  }

  clear(): void {
    this.#entries.length = 0
    this.#head = 0
    this.#size = 0
  }

  /** Forgets the entries `test` picks, keeping the others in their order. */
  removeWhere(test: (entry: T) => boolean): void {
    const kept = this.list().filter((entry) => !test(entry))
    this.clear()
    for (const entry of kept) this.add(entry)
  }
}
