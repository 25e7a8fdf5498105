import type { Change, TakenBack } from './change-log.ts'
import type { CollectionName } from './collections.ts'

/** One operation's changes, measured: what a state file writes, and the state's size after them. */
export interface PendingChanges {
  /**
   * Each record written (its JSON) or removed (`json: null`), in the order they happened; none
   * when {@link SizeLedger.measure} was told that no store writes them.
   */
  writes: { collection: CollectionName; record: object; json: string | null }[]
  /** The JSON size of each record the changes touch once they are kept; 0 for one removed. */
  sizes: Map<object, number>
  /** The JSON size of every record once the changes are kept, in characters. */
  bytes: number
}

/**
 * The JSON size of the records, in characters: of the whole state, what `maxStateBytes` bounds,
 * and of each record measured since the load, so that a change is measured by what it adds.
 * It is told of each change: measured ({@link measure}), then kept ({@link accept}), held until a
 * commit ({@link hold}) or taken back.
 *
 * @example
 * const pending = sizes.measure(log.current)
 * if (pending.bytes <= limit) sizes.accept(pending)
 */
export class SizeLedger implements TakenBack {
  /**
   * The JSON size of each record measured since the load; a record loaded and never changed
   * since is measured when it first changes or leaves (see {@link #sizeOf}). A `Map`, not a
   * `WeakMap`: every record leaves through a logged change, which drops its entry, and a
   * `WeakMap` costs five times as much to change (a token comes and goes on every identify).
   */
  readonly #sizes = new Map<object, number>()
  #bytes = 0
  /**
   * The size of each record the operations held since the last {@link confirm} wrote, and of the
   * state, as they were before them: what {@link undoHeld} restores when their commit fails.
   */
  readonly #heldSizes = new Map<object, number | undefined>()
  #heldBytes = 0

  /** The JSON size of every record kept, in characters (an operation under way aside). */
  get bytes(): number {
    return this.#bytes
  }

  /** Counts `record`, placed by a load, in the state's size, keeping no size for it. */
  loaded(record: object): void {
    this.#bytes += JSON.stringify(record).length
  }

  /** Measures `record` as it is, unless measured since the load: call it before a change in place. */
  measureBeforeChange(record: object): void {
    if (!this.#sizes.has(record)) this.#sizes.set(record, JSON.stringify(record).length)
  }

  /**
   * `changes` (an operation's, oldest first) measured; {@link accept} them or take them back
   * next. Without `writes` (no store writes them), a record changed in place once is measured by
   * the fields it changed, its JSON not built.
   */
  measure(changes: readonly Change[], writes = true): PendingChanges {
    let bytes = this.#bytes
    const sizes = new Map<object, number>()
    const written: PendingChanges['writes'] = []
    for (const { collection, op, record, before, created, json: known } of changes) {
      const seen = sizes.get(record)
      const old = seen ?? (created ? undefined : this.#sizeOf(record))
      let size = 0
      if (op === 'put') {
        const resized = writes || seen !== undefined ? undefined : resizedBy(record, before, old)
        const json =
          resized !== undefined
            ? undefined
            : seen === undefined && known
              ? known
              : JSON.stringify(record)
        if (writes) written.push({ collection, record, json: json as string })
        size = resized ?? (json as string).length
      } else if (writes) written.push({ collection, record, json: null })
      bytes += size - (old ?? 0)
      sizes.set(record, size)
    }
    return { writes: written, sizes, bytes }
  }

  /**
   * The JSON size of `record`, held before the operation under way and not changed by it yet:
   * measured now if it was loaded and has not changed since.
   */
  #sizeOf(record: object): number {
    return this.#sizes.get(record) ?? JSON.stringify(record).length
  }

  /** Keeps the sizes of changes {@link measure} measured, for good. */
  accept({ sizes, bytes }: PendingChanges): void {
    // Not `for…of`: its entries are a new array each.
    sizes.forEach((size, record) => {
      if (size === 0) this.#sizes.delete(record)
      else this.#sizes.set(record, size)
    })
    this.#bytes = bytes
  }

  /**
   * Keeps the sizes of changes as {@link accept} does, but only until the operations held so far
   * are committed: {@link confirm} then makes them final, and {@link undoHeld} restores the sizes
   * before the first of them.
   */
  hold(pending: PendingChanges): void {
    if (this.#heldSizes.size === 0) this.#heldBytes = this.#bytes
    for (const record of pending.sizes.keys()) {
      if (!this.#heldSizes.has(record)) this.#heldSizes.set(record, this.#sizes.get(record))
    }
    this.accept(pending)
  }

  /** Makes final the sizes of every operation held since the last confirm. */
  confirm(): void {
    this.#heldSizes.clear()
  }

  /** Restores the sizes as they were before the first operation held since the last confirm. */
  undoHeld(): void {
    if (this.#heldSizes.size > 0) this.#bytes = this.#heldBytes
    for (const [record, size] of this.#heldSizes) {
      if (size === undefined) this.#sizes.delete(record)
      else this.#sizes.set(record, size)
    }
    this.confirm()
  }

  /** A record removed and taken back is a new object: it has the size its old one had. */
  recreated(record: object, copy: object): void {
    const size = this.#sizes.get(record)
    this.#sizes.delete(record)
    if (size !== undefined) this.#sizes.set(copy, size)
  }

  /** A record created and taken back is gone: no size is kept for it. */
  removed(record: object): void {
    this.#sizes.delete(record)
  }
}

/**
 * The JSON size of `record` changed in place from `before` (the fields it replaced, as they
 * were), when it was `old` characters: `old` plus what each changed value's JSON adds, a value
 * left the same adding nothing. `undefined` when that is not exact (no size known, a change in
 * place unknown, a field that is or was absent from the JSON): then the JSON is measured.
 */
function resizedBy(record: object, before: object | undefined, old: number | undefined) {
  if (before === undefined || old === undefined) return undefined
  let size = old
  for (const field in before) {
    const was = (before as Record<string, unknown>)[field]
    const now = (record as Record<string, unknown>)[field]
    if (now === was && was !== undefined) continue
    const [from, to] = [JSON.stringify(was), JSON.stringify(now)] as (string | undefined)[]
    if (from === undefined || to === undefined) return undefined
    size += to.length - from.length
  }
  return size
}
