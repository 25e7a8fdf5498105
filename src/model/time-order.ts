import type { ObservedRecords } from './indexes.ts'

/**
 * The records of a collection in the order of a time they carry (a token's expiry, a session's
 * start), earliest first, whatever order they were created in, apart for each group (each
 * organisation: each reads its own clock, so what has expired for one says nothing of another's):
 * a min-heap per group that the collection tells of every record created and removed, so that a
 * sweep of expired records only ever looks at the earliest one of its group. Insertion order is not
 * enough: a token issued under a longer TTL (before a restart with another `--token-ttl`) or
 * before the clock stepped back expires after later ones.
 *
 * @example
 * const byExpiry = new TimeOrder(tokens, (token) => Date.parse(token.expiresAt), (token) => token.orgId)
 * for (let first = byExpiry.first('org-1'); first && first.ms <= now; first = byExpiry.first('org-1')) {
 *   tokens.delete(first.record)
 * }
 */
export class TimeOrder<R> {
  readonly #heaps = new Map<string, Heap<R>>()
  readonly #groupOf: (record: R) => string
  #size = 0

  constructor(
    collection: ObservedRecords<R>,
    msOf: (record: R) => number,
    groupOf: (record: R) => string = () => '',
  ) {
    this.#groupOf = groupOf
    collection.observe({
      added: (record) => {
        const group = groupOf(record)
        let heap = this.#heaps.get(group)
        if (heap === undefined) {
          heap = new Heap()
          this.#heaps.set(group, heap)
        }
        heap.add(record, msOf(record))
        this.#size++
      },
      removed: (record) => {
        const group = this.#groupOf(record)
        const heap = this.#heaps.get(group)
        if (!heap?.remove(record)) return
        this.#size--
        if (heap.size === 0) this.#heaps.delete(group)
      },
    })
  }

  /** The earliest record of `group` and its time; `undefined` when the group has none. */
  first(group = ''): { ms: number; record: R } | undefined {
    return this.#heaps.get(group)?.first()
  }

  /** How many records there are, in every group. */
  get size(): number {
    return this.#size
  }
}

/** A record in a {@link Heap}: its time, and where it stands in the heap (not one of its fields). */
class HeapEntry<R> {
  readonly ms: number
  readonly record: R
  #index: number

  constructor(ms: number, record: R, index: number) {
    this.ms = ms
    this.record = record
    this.#index = index
  }

  get index(): number {
    return this.#index
  }

  set index(index: number) {
    this.#index = index
  }
}

/**
 * Records by a time, earliest first: a binary min-heap that knows where each record is. Each entry
 * holds its own place, so that moving it costs no lookup (a token comes and goes on every identify,
 * and each moves its neighbours).
 */
class Heap<R> {
  readonly #heap: HeapEntry<R>[] = []
  readonly #entryOf = new Map<R, HeapEntry<R>>()

  /** The earliest record and its time; `undefined` when there is none. */
  first(): { ms: number; record: R } | undefined {
    return this.#heap[0]
  }

  get size(): number {
    return this.#heap.length
  }

  add(record: R, ms: number): void {
    const entry = new HeapEntry(ms, record, this.#heap.length)
    this.#heap.push(entry)
    this.#entryOf.set(record, entry)
    this.#up(entry.index)
  }

  /** Removes `record`; whether it was here. */
  remove(record: R): boolean {
    const entry = this.#entryOf.get(record)
    if (entry === undefined) return false
    this.#entryOf.delete(record)
    const last = this.#heap.pop() as HeapEntry<R>
    if (last === entry) return true
    this.#heap[entry.index] = last
    last.index = entry.index
    this.#down(this.#up(entry.index))
    return true
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

  #at(index: number): HeapEntry<R> {
    return this.#heap[index] as HeapEntry<R>
  }

  #swap(a: number, b: number): void {
    const entryA = this.#at(a)
    const entryB = this.#at(b)
    this.#heap[a] = entryB
    entryB.index = a
    this.#heap[b] = entryA
    entryA.index = b
  }
}
