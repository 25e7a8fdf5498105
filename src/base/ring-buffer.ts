/**
 * A ring buffer that keeps the newest `capacity` entries: the journal of API calls, and the
 * webhook deliveries.
 */
export class RingBuffer<T> {
  readonly #entries: T[] = []
  readonly #capacity: number
  #next = 0

  constructor(capacity: number) {
    this.#capacity = capacity
  }

  add(entry: T): void {
    if (this.#entries.length < this.#capacity) this.#entries.push(entry)
    else this.#entries[this.#next] = entry
    this.#next = (this.#next + 1) % this.#capacity
  }

  /** The entries, oldest first. */
  list(): T[] {
    if (this.#entries.length < this.#capacity) return [...this.#entries]
    return [...this.#entries.slice(this.#next), ...this.#entries.slice(0, this.#next)]
  }

  clear(): void {
    this.#entries.length = 0
    this.#next = 0
  }

  /** Forgets the entries `test` picks, keeping the others in their order. */
  removeWhere(test: (entry: T) => boolean): void {
    const kept = this.list().filter((entry) => !test(entry))
    this.clear()
    for (const entry of kept) this.add(entry)
  }
}
