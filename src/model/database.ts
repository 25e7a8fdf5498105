import { fastParseOf } from '../api/fast-accept.ts'
import { afterReadyInput } from '../base/time.ts'
import { ChangeLog } from './change-log.ts'
import { type CollectionName, collectionNames, collectionTable } from './collections.ts'
import { copyRecord, IndexedRecords } from './indexed-records.ts'
import type { MockState } from './mock-state.ts'
import { type PendingChanges, SizeLedger } from './size-ledger.ts'

// The store's callers name these here: each is declared beside what it describes.
export type { StateChange } from './change-log.ts'
export type { Collections } from './indexed-records.ts'
export { emptyState, type MockState, mockStateSchema } from './mock-state.ts'
export type { PendingChanges } from './size-ledger.ts'

/** A record {@link Database.stage} stored, with its collection. */
export interface StagedRecord {
  collection: CollectionName
  record: object
  /** Its JSON, measured when it was stored: the turn that claims it does not build it again. */
  json: string
}

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

/**
 * The store of a mock, in its three parts: the records with their indexes (it is an
 * {@link IndexedRecords}), the log of what the operation under way changed, to take back
 * ({@link ChangeLog}), and the JSON size of the state, which `maxStateBytes` bounds
 * ({@link SizeLedger}). The rules change a record in place through {@link update}; the
 * transactions measure each operation's changes ({@link pending}), then keep, hold or take them
 * back. A reset builds a new `Database` rather than clearing this one.
 *
 * @example
 * const db = new Database()
 * await db.load(state)
 * db.update('users', user, { firstName: 'Ada' })
 * const pending = db.pending()
 * if (pending.bytes <= limit) db.accept(pending)
 * else await db.undo()
 */
export class Database extends IndexedRecords {
  /** What the operation under way and the operations held changed, to take back. */
  readonly #changes = new ChangeLog((name) => this.holderOf(name))
  /** The JSON size of the state, and of each record measured since the load. */
  readonly #sizes = new SizeLedger()

  /** The JSON size of every record kept, in characters (an operation under way aside). */
  get bytes(): number {
    return this.#sizes.bytes
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
    this.#sizes.measureBeforeChange(record)
    this.#changes.changeInPlace(collection, record, fields)
  }

  /**
   * The changes of the operation under way, measured; {@link accept} or {@link undo} them next.
   * Without `writes` (no store writes them), a record changed in place once is measured by the
   * fields it changed, its JSON not built.
   */
  pending(writes = true): PendingChanges {
    return this.#sizes.measure(this.#changes.current, writes)
  }

  /** Keeps the changes of the operation under way, measured by {@link pending}, for good. */
  accept(pending: PendingChanges): void {
    this.#sizes.accept(pending)
    this.#changes.accept()
  }

  /**
   * Keeps the changes of the operation under way as {@link accept} does, but only until the
   * operations held so far are committed to a store: {@link confirm} then makes them final, and
   * {@link undoHeld} takes them all back.
   */
  hold(pending: PendingChanges): void {
    this.#sizes.hold(pending)
    this.#changes.hold()
  }

  /** Makes final every operation held since the last confirm: their commit has returned. */
  confirm(): void {
    this.#changes.confirm()
    this.#sizes.confirm()
  }

  /** Takes back every change of the operation under way: the records are as they were before it. */
  undo(): Promise<void> {
    return this.#changes.undo(this.#sizes)
  }

  /**
   * Takes back every operation held since the last {@link confirm} (and the one under way, if
   * any), the latest first: the records are as they were before the first of them.
   */
  undoHeld(): Promise<void> {
    this.#sizes.undoHeld()
    return this.#changes.undoHeld(this.#sizes)
  }

  /**
   * Stores a copy of every record of `state`, validated by its collection's schema, outside the
   * change log: no operation writes, measures or takes them back (another's refusal included)
   * until one {@link claim}s them, and {@link unstage} removes them. What lets a large organisation
   * be created over several turns of the queue, the other operations running between them.
   */
  async stage(state: Partial<MockState>): Promise<StagedRecord[]> {
    const staged: StagedRecord[] = []
    await this.#changes.quietly(() =>
      this.addEach(state, (collection, record) =>
        staged.push({ collection, record, json: JSON.stringify(record) }),
      ),
    )
    return staged
  }

  /** Makes `staged` records changes of the operation under way, as if it had created them. */
  claim(staged: readonly StagedRecord[]): void {
    for (const { collection, record, json } of staged) {
      this.#changes.created(collection, record, json)
    }
  }

  /** Removes `staged` records, which no operation has claimed, outside the change log. */
  async unstage(staged: readonly StagedRecord[]): Promise<void> {
    await this.#changes.quietly(async () => {
      for (const { collection, record } of staged) this.holderOf(collection).delete(record as never)
    })
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
      for (const record of records) {
        this.#sizes.loaded(record)
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
