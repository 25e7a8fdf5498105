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
  #size = 0

  constructor(
    collection: ObservedRecords<R>,
    msOf: (record: R) => number,
    groupOf: (record: R) => string = () => '',
  ) {
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
        const group = groupOf(record)
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
class Entry<R> {
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
 * Records by a time, earliest first: a binary min-heap whose entries hold their own place, so that
 * removing a record (a token comes and goes on every identify) finds it with one `Map` lookup. A
 * record moves only past a strictly later or earlier one: records of the same time stay put.
 */
class Heap<R> {
  readonly #entries: Entry<R>[] = []
  readonly #entryOf = new Map<R, Entry<R>>()

  get size(): number {
    return this.#entries.length
  }

  first(): Entry<R> | undefined {
    return this.#entries[0]
  }

  add(record: R, ms: number): void {
    const entry = new Entry(ms, record, this.#entries.length)
    this.#entries.push(entry)
    this.#entryOf.set(record, entry)
    this.#settle(entry)
  }

  /** Removes `record`; whether it was here. */
  remove(record: R): boolean {
    const entry = this.#entryOf.get(record)
    if (entry === undefined) return false
    this.#entryOf.delete(record)
    const last = this.#entries.pop() as Entry<R>
    if (last !== entry) {
      last.index = entry.index
      this.#settle(last)
    }
    return true
  }

  /** Puts `entry`, due at its `index`, where it belongs: up past later parents, or down past earlier children. */
  #settle(entry: Entry<R>): void {
    const entries = this.#entries
    let i = entry.index
    while (i > 0) {
      const parent = entries[(i - 1) >> 1] as Entry<R>
      if (parent.ms <= entry.ms) break
      this.#place(parent, i)
      i = (i - 1) >> 1
    }
    for (;;) {
      let child = 2 * i + 1
      const right = entries[child + 1]
      if (right !== undefined && right.ms < (entries[child] as Entry<R>).ms) child++
      const next = entries[child]
      if (next === undefined || next.ms >= entry.ms) break
      this.#place(next, i)
      i = child
    }
    this.#place(entry, i)
  }

  #place(entry: Entry<R>, index: number): void {
    this.#entries[index] = entry
    entry.index = index
  }
}
