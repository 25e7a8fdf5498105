import { fastParseOf } from '../api/fast-accept.ts'
import { afterReadyInput } from '../base/time.ts'
import { ChangeLog, type TakenBack } from './change-log.ts'
import { type CollectionName, collectionNames, collectionTable } from './collections.ts'
import { copyRecord, IndexedRecords } from './indexed-records.ts'
import type { MockState } from './mock-state.ts'

// The store's callers name these here: each is declared beside what it describes.
export type { StateChange } from './change-log.ts'
export type { Collections } from './indexed-records.ts'
export { emptyState, type MockState, mockStateSchema } from './mock-state.ts'

/** How many records a load creates between two turns of the event loop. */
const loadSlice = 2048

/**
 * Each collection's parse at a load: zod's answer, a record its schema accepts copied by a check
 * derived from the schema (see `fastParseOf`). Derived at a collection's first load.
 */
const loadParses = new Map<CollectionName, (record: unknown) => object>()

function loadParseOf(name: CollectionName): (record: unknown) => object {
  const parse = loadParses.get(name) ?? fastParseOf(collectionTable[name].schema)
  loadParses.set(name, parse)
  return parse
}

/** The states {@link generated} marked: built by the mock's own typed code. */
const generatedStates = new WeakSet<object>()
/** The states whose every record is its schema's output: generated, or {@link checked}. */
const parsedStates = new WeakSet<object>()

/**
 * Marks `state` as built, every record of it, by the mock's own typed code from the schemas' types
 * (the seeded data): a load copies its records without running the schemas' check on them (see
 * docs/decisions/generated-records.md). A state with a record from anywhere else (a data file, a
 * caller) is never marked, and each of its records is checked; a state file's is {@link checked}.
 *
 * @example const state = generated(seededState())
 */
export function generated(state: MockState): MockState {
  generatedStates.add(state)
  parsedStates.add(state)
  return state
}

/**
 * Marks `state` as checked, every record of it, by its collection's schema, and made of the
 * schemas' output only (what a state file's read gives): a load stores its records without
 * checking them again.
 */
export function checked(state: MockState): MockState {
  parsedStates.add(state)
  return state
}

/** Whether {@link generated} marked `state`. */
export function isGenerated(state: Partial<MockState>): boolean {
  return generatedStates.has(state)
}

/** One operation's changes, measured: what a state file writes, and the state's size after them. */
export interface PendingChanges {
  /**
   * Each record written (its JSON) or removed (`json: null`), in the order they happened; none
   * when {@link Database.pending} was told that no store writes them.
   */
  writes: { collection: CollectionName; record: object; json: string | null }[]
  /** The JSON size of each record the changes touch once they are kept; 0 for one removed. */
  sizes: Map<object, number>
  /** The JSON size of every record once the changes are kept, in characters. */
  bytes: number
}

/**
 * The records of a mock with their indexes ({@link IndexedRecords}), whose every change is logged,
 * to be taken back, and measured against `maxStateBytes`. A reset builds a new `Database` rather
 * than clearing this one.
 */
export class Database extends IndexedRecords {
  /** What the operation under way and the operations held changed, to take back. */
  readonly #changes = new ChangeLog((name) => this.holderOf(name))
  /**
   * The size of each record the operations held since the last {@link confirm} wrote, and of the
   * state, as they were before them: what {@link undoHeld} restores when their commit fails.
   */
  readonly #heldSizes = new Map<object, number | undefined>()
  #heldBytes = 0
  /**
   * The JSON size of each record measured since the load, in characters; a record loaded and
   * never changed since is measured when it first changes or leaves (see {@link #sizeOf}). A
   * `Map`, not a `WeakMap`: every record leaves through a logged change, which drops its entry,
   * and a `WeakMap` costs five times as much to change (a token comes and goes on every identify).
   */
  readonly #sizes = new Map<object, number>()
  /** The JSON size of every record, in characters: what `maxStateBytes` bounds. */
  #bytes = 0

  /** The sizes of the records a take-back re-creates or removes. */
  readonly #takenBack: TakenBack = {
    recreated: (record, copy) => {
      const size = this.#sizes.get(record)
      this.#sizes.delete(record)
      if (size !== undefined) this.#sizes.set(copy, size)
    },
    removed: (record) => {
      this.#sizes.delete(record)
    },
  }

  /** The JSON size of every record kept, in characters (an operation under way aside). */
  get bytes(): number {
    return this.#bytes
  }

  /**
   * Changes `record` in place with `fields`: the way a rule changes a stored record, so that the
   * change is written to the state file and can be taken back. A field given the value it holds
   * already (a client sends the same profile on every sign-in) is left as it is, neither measured
   * nor taken back.
   */
  update<C extends keyof MockState>(
    collection: C,
    record: MockState[C][number],
    fields: Partial<MockState[C][number]>,
  ): void {
    // Measured as it was, before the first change since the load.
    if (!this.#sizes.has(record)) this.#sizes.set(record, JSON.stringify(record).length)
    this.#changes.changeInPlace(collection, record, fields)
  }

  /**
   * The changes of the operation under way, measured; {@link accept} or {@link undo} them next.
   * Without `writes` (no store writes them), a record changed in place once is measured by the
   * fields it changed, its JSON not built.
   */
  pending(writes = true): PendingChanges {
    let bytes = this.#bytes
    const sizes = new Map<object, number>()
    const written: PendingChanges['writes'] = []
    for (const { collection, op, record, before, created } of this.#changes.current) {
      const seen = sizes.get(record)
      const old = seen ?? (created ? undefined : this.#sizeOf(record))
      let size = 0
      if (op === 'put') {
        const resized = writes || seen !== undefined ? undefined : resizedBy(record, before, old)
        const json = resized === undefined ? JSON.stringify(record) : undefined
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

  /** Keeps the changes of the operation under way, measured by {@link pending}, for good. */
  accept({ sizes, bytes }: PendingChanges): void {
    // Not `for…of`: its entries are a new array each.
    sizes.forEach((size, record) => {
      if (size === 0) this.#sizes.delete(record)
      else this.#sizes.set(record, size)
    })
    this.#bytes = bytes
    this.#changes.accept()
  }

  /**
   * Keeps the changes of the operation under way as {@link accept} does, but only until the
   * operations held so far are committed to a store: {@link confirm} then makes them final, and
   * {@link undoHeld} takes them all back.
   */
  hold(pending: PendingChanges): void {
    if (this.#heldSizes.size === 0) this.#heldBytes = this.#bytes
    for (const record of pending.sizes.keys()) {
      if (!this.#heldSizes.has(record)) this.#heldSizes.set(record, this.#sizes.get(record))
    }
    this.#changes.hold()
    this.accept(pending)
  }

  /** Makes final every operation held since the last confirm: their commit has returned. */
  confirm(): void {
    this.#changes.confirm()
    this.#heldSizes.clear()
  }

  /** Takes back every change of the operation under way: the records are as they were before it. */
  undo(): Promise<void> {
    return this.#changes.undo(this.#takenBack)
  }

  /**
   * Takes back every operation held since the last {@link confirm} (and the one under way, if
   * any), the latest first: the records are as they were before the first of them.
   */
  undoHeld(): Promise<void> {
    const held = this.#heldSizes.size > 0
    for (const [record, size] of this.#heldSizes) {
      if (size === undefined) this.#sizes.delete(record)
      else this.#sizes.set(record, size)
    }
    if (held) this.#bytes = this.#heldBytes
    this.#heldSizes.clear()
    return this.#changes.undoHeld(this.#takenBack)
  }

  /**
   * Stores a copy of every record of `state`, each validated once by its collection's schema (the
   * parse is the copy; a record the check derived from the schema accepts is copied by that check,
   * any other is zod's to refuse) unless the mock's own code built the state ({@link generated})
   * or its schemas checked it already ({@link checked}): then its records are copied, or stored
   * themselves when the load `owns` the state (its caller keeps no reference to it). The records
   * of the model are staged: indexed, counted and readable when this resolves, then adopted into
   * `@msw/data` in the background ({@link adopted}), each object kept as it is.
   */
  async load(state: Partial<MockState>, { owns = false } = {}): Promise<void> {
    await this.#changes.quietly(() => this.#loadRecords(state, owns))
    this.#changes.accept()
    this.confirm()
    this.adoptPlaced()
  }

  async #loadRecords(state: Partial<MockState>, owns: boolean): Promise<void> {
    let loaded = 0
    const parsed = parsedStates.has(state)
    // A long load lets the event loop turn: a container's PID 1 honours SIGTERM only there.
    const turn = () => new Promise<void>((resolve) => afterReadyInput(resolve))
    for (const name of collectionNames) {
      let records: readonly object[] = state[name] ?? []
      const parse = !parsed ? loadParseOf(name) : owns ? undefined : copyRecord
      if (parse) {
        const copies: object[] = []
        for (const record of records) {
          copies.push(parse(record))
          if (++loaded % loadSlice === 0) await turn()
        }
        records = copies
      }
      this.place(name, records)
      // Added up, no size kept for each (see `#sizeOf`).
      for (const record of records) {
        this.#bytes += JSON.stringify(record).length
        if (++loaded % loadSlice === 0) await turn()
      }
    }
  }
}

/**
 * Whether every record of `state` is exactly what its collection's schema parses it to (the same
 * JSON, keys in the same order): what the build checks of the prebuilt default data before a mock
 * loads it as {@link generated}. Parses every record once.
 */
export function isParsedState(state: Partial<MockState>): boolean {
  return collectionNames.every((name) =>
    (state[name] ?? []).every(
      (record) =>
        JSON.stringify(collectionTable[name].schema.parse(record)) === JSON.stringify(record),
    ),
  )
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
