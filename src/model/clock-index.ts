import type { ClockMode, ClockSetting } from '../api/clock-schemas.ts'
import type { ObservedRecords } from './indexes.ts'
import type { ClockRecord } from './records.ts'

/** The key of the mock's own clock among the clocks: no organisation's id is empty. */
export const mockClockKey = ''

/** A clock's record with its instants read once, when it was stored. */
interface Clock<R> {
  record: R
  frozen: boolean
  atMs: number
  sinceMs: number
}

/**
 * The clocks a test set, by owner (an organisation's id, or {@link mockClockKey} for the mock's),
 * their instants read once: an organisation reads its own clock, else the mock's, else the real
 * one. A clock changes by being replaced (its record removed and another created), so that this
 * index is told of it as of any record.
 *
 * @example
 * const clocks = new ClockIndex(collections.clocks)
 * clocks.timeOf('org-1', Date.now()) // the real time while no clock is set
 */
export class ClockIndex<R extends ClockRecord = ClockRecord> {
  readonly #clocks = new Map<string, Clock<R>>()

  constructor(collection: ObservedRecords<R>) {
    collection.observe({
      added: (record) => {
        const atMs = Date.parse(record.at)
        // A start not yet loaded (see `startClocks`) reads as if it had just started.
        const sinceMs = record.since === null ? atMs : Date.parse(record.since)
        this.#clocks.set(record.orgId, { record, frozen: record.mode === 'frozen', atMs, sinceMs })
      },
      removed: (record) => {
        if (this.#clocks.get(record.orgId)?.record === record) this.#clocks.delete(record.orgId)
      },
    })
  }

  /** How many clocks are set: none while every organisation reads the real clock. */
  get size(): number {
    return this.#clocks.size
  }

  /** The record of the clock `owner` has of its own (`''`: the mock's), if any. */
  get(owner: string): R | undefined {
    return this.#clocks.get(owner)?.record
  }

  /**
   * The time of the clock organisation `orgId` reads (the mock's for `undefined`), in
   * milliseconds, when the real clock reads `realMs`.
   */
  timeOf(orgId: string | undefined, realMs: number): number {
    const clock = this.#clockOf(orgId)
    if (clock === undefined) return realMs
    return clock.frozen ? clock.atMs : clock.atMs + (realMs - clock.sinceMs)
  }

  /** The mode of the clock organisation `orgId` reads (the mock's for `undefined`). */
  modeOf(orgId: string | undefined): ClockMode {
    const clock = this.#clockOf(orgId)
    return clock === undefined ? 'real' : clock.record.mode
  }

  #clockOf(orgId: string | undefined): Clock<R> | undefined {
    if (this.#clocks.size === 0) return undefined
    return (orgId === undefined ? undefined : this.#clocks.get(orgId)) ?? this.#clocks.get('')
  }
}

/**
 * The record of `owner`'s clock as `setting` gives it (`undefined` for the real clock: no record),
 * running from the real instant `since` (`null`: from when it is loaded, for a start declared).
 *
 * @example clockRecordOf('org-1', { frozenAt: '2030-01-01T00:00:00Z' }, null) // { orgId: 'org-1', mode: 'frozen', at: '2030-01-01T00:00:00.000Z', since: null }
 */
export function clockRecordOf(
  owner: string,
  setting: ClockSetting,
  since: string | null,
): ClockRecord | undefined {
  if (setting.frozenAt !== undefined) {
    return { orgId: owner, mode: 'frozen', at: isoOf(setting.frozenAt), since: null }
  }
  if (setting.startAt !== undefined) {
    return { orgId: owner, mode: 'running', at: isoOf(setting.startAt), since }
  }
  return undefined
}

/** An instant as a clock's record holds it: UTC, to the millisecond. */
const isoOf = (text: string) => new Date(text).toISOString()
