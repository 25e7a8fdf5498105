import { type CollectionName, collectionNames } from './collections.ts'
import { copyRecord, type RecordHolder } from './indexed-records.ts'
import type { MockState } from './mock-state.ts'
import { sameFieldValue } from './records.ts'

/** One change to the records: a record written (created or changed in place) or removed. */
export type StateChange = {
  [C in keyof MockState]: { collection: C; op: 'put' | 'delete'; record: MockState[C][number] }
}[keyof MockState]

/** A change of the operation under way, as {@link ChangeLog.undo} takes it back. */
export type Change = StateChange & {
  /** A record created by the operation (rather than changed in place). */
  created?: true
  /** The fields a change in place replaced, as they were. */
  before?: object
  /** The record's JSON, when it was measured before it was logged (see {@link ChangeLog.created}). */
  json?: string
}

/** Told of the records a take-back replaces or removes: what is kept of them elsewhere (a size). */
export interface TakenBack {
  /** `record`, removed by the operation, is back as `copy`, a new object. */
  recreated(record: object, copy: object): void
  /** `record`, created by the operation, is gone again. */
  removed(record: object): void
}

/**
 * What the operation under way changed in the records, and the operations held since their last
 * commit: the records it created and removed (each collection and store tells of them), and the
 * fields it changed in place ({@link changeInPlace}, with the values they replaced), oldest
 * first. What a store writes, and what {@link undo} takes back when the operation is refused
 * (docs/decisions/operations-taken-back.md).
 *
 * @example
 * const log = new ChangeLog((name) => holders[name]) // a collection or store for each name
 * log.changeInPlace('users', user, { firstName: 'Ada' })
 * await log.undo(sizes) // user.firstName is what it was
 */
export class ChangeLog {
  /** The changes of the operation under way, oldest first (see {@link current}). */
  #current: Change[] = []
  /** The changes of the operations held since the last {@link confirm}, oldest first. */
  #held: Change[] = []
  /** Set while a load places its records or an undo takes changes back: neither is a change. */
  #quiet = false
  readonly #holderOf: (name: CollectionName) => RecordHolder

  /** A log of every change to the records that `holderOf` gives for each collection. */
  constructor(holderOf: (name: CollectionName) => RecordHolder) {
    this.#holderOf = holderOf
    for (const collection of collectionNames) {
      holderOf(collection).observe({
        added: (record) => {
          if (!this.#quiet) this.#current.push({ collection, op: 'put', record, created: true })
        },
        removed: (record) => {
          if (!this.#quiet) this.#current.push({ collection, op: 'delete', record })
        },
      })
    }
  }

  /** The changes of the operation under way, oldest first: the log's own array, not a copy. */
  get current(): readonly Change[] {
    return this.#current
  }

  /**
   * Changes `record` in place with `fields`, and logs what they replaced. A field given the value
   * it holds already is left as it is, and not logged.
   */
  changeInPlace<C extends keyof MockState>(
    collection: C,
    record: MockState[C][number],
    fields: Partial<MockState[C][number]>,
  ): void {
    const held = record as Record<string, unknown>
    const before: Record<string, unknown> = {}
    for (const field in fields) {
      const value = (fields as Record<string, unknown>)[field]
      if (sameFieldValue(held[field], value)) continue
      before[field] = held[field]
      held[field] = value
    }
    if (!this.#quiet) this.#current.push({ collection, op: 'put', record, before } as Change)
  }

  /**
   * Logs `record`, stored before without a log ({@link quietly}), as created by the operation
   * under way: written, measured and taken back with it; `json`, its JSON if known (it has not
   * changed since), spares building it again.
   */
  created(collection: CollectionName, record: object, json?: string): void {
    this.#current.push({ collection, op: 'put', record, created: true, json } as Change)
  }

  /** Forgets the changes of the operation under way: they are kept for good. */
  accept(): void {
    this.#current = []
  }

  /**
   * Keeps the changes of the operation under way with the operations held so far, until their
   * commit: {@link confirm} then forgets them, and {@link undoHeld} takes them all back.
   */
  hold(): void {
    this.#held.push(...this.#current)
    this.#current = []
  }

  /** Forgets every operation held since the last confirm: their commit has returned. */
  confirm(): void {
    this.#held = []
  }

  /**
   * Takes back every change of the operation under way, the latest first: the records are as
   * they were before it. `sizes` hears of each record re-created or removed.
   */
  async undo(sizes: TakenBack): Promise<void> {
    const log = this.#current
    this.#current = []
    await this.#takeBack(log, sizes)
  }

  /**
   * Takes back every operation held since the last {@link confirm} (and the one under way, if
   * any), the latest first: the records are as they were before the first of them.
   */
  async undoHeld(sizes: TakenBack): Promise<void> {
    const log = [...this.#held, ...this.#current]
    this.#current = []
    this.confirm()
    await this.#takeBack(log, sizes)
  }

  /** Runs `task` (a load placing its records) without logging what it changes. */
  async quietly(task: () => Promise<void>): Promise<void> {
    this.#quiet = true
    try {
      await task()
    } finally {
      this.#quiet = false
    }
  }

  /** Takes back the changes of `log`, the latest first. */
  #takeBack(log: Change[], sizes: TakenBack): Promise<void> {
    return this.quietly(async () => {
      // A record removed and created again is a new object: later changes name the old one.
      const recreated = new Map<object, object>()
      for (const change of log.reverse()) {
        const holder = this.#holderOf(change.collection)
        const record = recreated.get(change.record) ?? change.record
        if (change.op === 'delete') {
          // A copy: `@msw/data` marks the records it stores, and a mark cannot be set twice.
          const copy = (await holder.create(copyRecord(record) as never)) as object
          recreated.set(change.record, copy)
          sizes.recreated(change.record, copy)
        } else if (change.created) {
          holder.delete(record as never)
          sizes.removed(record)
        } else Object.assign(record, change.before)
      }
    })
  }
}
