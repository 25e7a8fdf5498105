import { RingBuffer } from '../base/ring-buffer.ts'
import type { JournalEntry } from './journal.ts'

/**
 * A call under way, as {@link CallJournal.begin} saw it start: its entry is dropped if its
 * organisation (or the whole mock) is reset or removed before it ends.
 */
export interface CallTicket {
  /** The organisation that owns the call: set once known, for a call refused before its key. */
  owner: string | undefined
  /** Its organisation or the whole mock was reset or removed since it began. */
  dropped: boolean
}

interface Stamped {
  entry: JournalEntry
  owner: string | undefined
  order: number
}

/**
 * The journal, one ring buffer per organisation and one for the calls that belong to none, each
 * of `limit` entries: no tenant's calls evict another's. An entry belongs to the organisation
 * that owns its call (see the dispatch); one naming an organisation the mock does not have is
 * kept with the calls of none, still listed under the name it gave.
 *
 * @example
 * const ticket = journal.begin('org-1')
 * journal.end(ticket, entry) // kept, unless org-1 was reset or removed meanwhile
 */
export class CallJournal {
  readonly #limit: number
  readonly #has: (orgId: string) => boolean
  readonly #byOrganisation = new Map<string, RingBuffer<Stamped>>()
  readonly #none: RingBuffer<Stamped>
  /** The calls begun and not yet ended: at most one per request being answered. */
  readonly #underWay = new Set<CallTicket>()
  #order = 0

  constructor(limit: number, has: (orgId: string) => boolean) {
    this.#limit = limit
    this.#has = has
    this.#none = new RingBuffer(limit)
  }

  /** Notes that a call of `owner` (or of none) starts now; {@link end} ends it. */
  begin(owner: string | undefined): CallTicket {
    const ticket = { owner, dropped: false }
    this.#underWay.add(ticket)
    return ticket
  }

  /** Ends the call `ticket` began, keeping its entry (if it has one) unless it was dropped. */
  end(ticket: CallTicket, entry?: JournalEntry): void {
    this.#underWay.delete(ticket)
    if (ticket.dropped || entry === undefined) return
    const { owner } = ticket
    const stamped = { entry, owner, order: this.#order++ }
    if (owner === undefined || !this.#has(owner)) {
      this.#none.add(stamped)
      return
    }
    let buffer = this.#byOrganisation.get(owner)
    if (!buffer) {
      buffer = new RingBuffer(this.#limit)
      this.#byOrganisation.set(owner, buffer)
    }
    buffer.add(stamped)
  }

  /** The entries, oldest first; with `orgId`, only those of the calls it owns. */
  list(orgId?: string): JournalEntry[] {
    const buffers =
      orgId === undefined
        ? [this.#none, ...this.#byOrganisation.values()]
        : [this.#byOrganisation.get(orgId)].filter((buffer) => buffer !== undefined)
    const stamped = buffers.flatMap((buffer) => buffer.list())
    const named = orgId === undefined ? [] : this.#none.list().filter((s) => s.owner === orgId)
    const all = [...stamped, ...named]
    if (buffers.length + (named.length > 0 ? 1 : 0) > 1) all.sort((a, b) => a.order - b.order)
    return all.map(({ entry }) => entry)
  }

  /** Forgets the entries of `orgId`, and drops those of its calls still under way. */
  forget(orgId: string): void {
    for (const ticket of this.#underWay) if (ticket.owner === orgId) ticket.dropped = true
    this.#byOrganisation.delete(orgId)
    this.#none.removeWhere((s) => s.owner === orgId)
  }

  /** Forgets every entry, and drops those of every call still under way. */
  clear(): void {
    for (const ticket of this.#underWay) ticket.dropped = true
    this.#byOrganisation.clear()
    this.#none.clear()
  }
}
