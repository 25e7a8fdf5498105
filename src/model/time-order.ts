import type { ObservedRecords } from './indexes.ts'

/**
 * The records of a collection in the order of a time they carry (a token's expiry, a session's
 * start), earliest first, whatever order they were created in: a min-heap that the collection
 * tells of every record created and removed, so that a sweep of expired records only ever looks
 * at the earliest one. Insertion order is not enough: a token issued under a longer TTL (before a
 * restart with another `--token-ttl`) or before the clock stepped back expires after later ones.
 *
 * @example
 * const byExpiry = new TimeOrder(tokens, (token) => Date.parse(token.expiresAt))
 * for (let first = byExpiry.first(); first && first.ms <= now; first = byExpiry.first()) {
 *   tokens.delete(first.record)
 * }
 */
export class TimeOrder<R> {
  readonly #heap: Array<{ ms: number; record: R }> = []
  readonly #position = new Map<R, number>()

  constructor(collection: ObservedRecords<R>, msOf: (record: R) => number) {
    collection.observe({
      added: (record) => this.#add(record, msOf(record)),
      removed: (record) => this.#remove(record),
    })
  }

  /** The earliest record and its time; `undefined` when the collection is empty. */
  first(): { ms: number; record: R } | undefined {
    return this.#heap[0]
  }

  get size(): number {
    return this.#heap.length
  }

  #add(record: R, ms: number): void {
    this.#heap.push({ ms, record })
    this.#position.set(record, this.#heap.length - 1)
    this.#up(this.#heap.length - 1)
  }

  #remove(record: R): void {
    const index = this.#position.get(record)
    if (index === undefined) return
    this.#position.delete(record)
    const last = this.#heap.pop()
    if (!last || index === this.#heap.length) return
    this.#heap[index] = last
    this.#position.set(last.record, index)
    this.#down(this.#up(index))
  }

  /** Moves the entry at `index` up while it is earlier than its parent; where it ends. */
  #up(index: number): number {
    let i = index
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (this.#at(parent).ms <= this.#at(i).ms) break
      this.#swap(i, parent)
      i = parent
    }
    return i
  }

  #down(index: number): void {
    const heap = this.#heap
    let i = index
    for (;;) {
      const left = 2 * i + 1
      const right = left + 1
      let earliest = i
      if (left < heap.length && this.#at(left).ms < this.#at(earliest).ms) earliest = left
      if (right < heap.length && this.#at(right).ms < this.#at(earliest).ms) earliest = right
      if (earliest === i) return
      this.#swap(i, earliest)
      i = earliest
    }
  }

  #at(index: number) {
    return this.#heap[index] as { ms: number; record: R }
  }

  #swap(a: number, b: number): void {
    const entryA = this.#at(a)
    const entryB = this.#at(b)
    this.#heap[a] = entryB
    this.#heap[b] = entryA
    this.#position.set(entryB.record, a)
    this.#position.set(entryA.record, b)
  }
}
