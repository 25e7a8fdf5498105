import { heldBytes } from '../base/held-bytes.ts'
import { RingBuffer } from '../base/ring-buffer.ts'
import { type JournalEntry, journalEntryFields } from './journal.ts'

/**
 * A call under way, as {@link CallJournal.begin} saw it start: its entry is dropped if its
 * organisation (or the whole mock) is reset or removed before it ends.
 */
export interface CallTicket {
  /**
   * The organisation that owns the call: the one its key authenticated, set once it has (or the
   * one a web-view request names); none for a call refused before its key.
   */
  owner: string | undefined
  /** Its organisation or the whole mock was reset or removed since it began. */
  dropped: boolean
}

/**
 * An entry as the journal keeps it: its fields, what it asked as the JSON text it was measured as,
 * and what the journal needs of it.
 */
type Kept = Omit<JournalEntry, 'request'> & {
  /** The JSON of the entry's `request`, for a call a route matched. */
  request: string | undefined
  owner: string | undefined
  order: number
  /** What the entry holds in memory, in bytes: see {@link heldBytes}. */
  bytes: number
}

/** One organisation's entries, and the bytes they hold. */
interface Scope {
  entries: RingBuffer<Kept>
  bytes: number
}

/**
 * What an entry holds beside its path and its request's text, in bytes, at most: the object and
 * its fields (the time's text is shared by the calls of one second). Measured: see the journal's
 * memory test.
 */
export const entryOverheadBytes = 256

/** The longest path a refused call's entry keeps, in characters; past it, cut and marked `…`. */
export const refusedPathLength = 256

/** The longest request text a refused call's entry keeps, in characters; past it, `null`. */
export const refusedRequestLength = 1024

/**
 * The journal. Each organisation's calls are a ring of `entries`, so that no tenant's calls evict
 * another's by count, and all of them together hold at most `bytes`, each entry measured as held
 * (its request kept as the JSON text it measured, never as parsed objects, which cost about 22
 * times as much): past it, the organisation holding the most bytes loses its oldest entry first.
 * Calls that end without an owner (refused before authentication: a wrong key, a path no route
 * has; a web view naming no organisation) are kept apart in a small form, one ring of `entries` for
 * the whole mock, each entry's path cut at {@link refusedPathLength} characters and its request
 * kept only up to {@link refusedRequestLength}: a flood of them evicts only each other; they are
 * listed only with every call, never under an organisation.
 *
 * @example
 * const ticket = journal.begin('org-1')
 * journal.end(ticket, entry) // kept, unless org-1 was reset or removed meanwhile
 */
export class CallJournal {
  readonly #entries: number
  readonly #maxBytes: number
  readonly #has: (orgId: string) => boolean
  readonly #byOrganisation = new Map<string, Scope>()
  readonly #refused: RingBuffer<Kept>
  /** The bytes the organisations' entries hold together. */
  #bytes = 0
  /** The calls begun and not yet ended: at most one per request being answered. */
  readonly #underWay = new Set<CallTicket>()
  #order = 0

  constructor(limits: { entries: number; bytes: number }, has: (orgId: string) => boolean) {
    this.#entries = limits.entries
    this.#maxBytes = limits.bytes
    this.#has = has
    this.#refused = new RingBuffer(limits.entries)
  }

  /** The bytes the organisations' entries hold together (what `bytes` bounds). */
  get bytes(): number {
    return this.#bytes
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
    if (owner === undefined || !this.#has(owner)) {
      this.#refused.add(this.#keep(entry, owner, true))
      return
    }
    const kept = this.#keep(entry, owner, false)
    let scope = this.#byOrganisation.get(owner)
    if (!scope) {
      scope = { entries: new RingBuffer(this.#entries), bytes: 0 }
      this.#byOrganisation.set(owner, scope)
    }
    const dropped = scope.entries.add(kept)
    this.#count(scope, kept.bytes - (dropped?.bytes ?? 0))
    while (this.#bytes > this.#maxBytes && this.#dropOldestOfLargest(kept)) {}
  }

  /** The entries, oldest first; with `orgId`, only those of the calls it owns. */
  list(orgId?: string): JournalEntry[] {
    return this.#kept(orgId).map(entryOf)
  }

  /**
   * The JSON of {@link list}`(orgId)`'s newest `limit` entries (all without one), in pieces of
   * about 64 KiB, never as one string: each entry's request is written as the text kept, never
   * parsed. What `GET /__mock/requests` writes as it reads.
   */
  async *json(orgId?: string, limit?: number): AsyncGenerator<string> {
    const kept = this.#kept(orgId)
    let piece = '['
    for (let i = limit ? Math.max(0, kept.length - limit) : 0, first = true; i < kept.length; i++) {
      piece += (first ? '' : ',') + jsonOf(kept[i] as Kept)
      first = false
      if (piece.length >= 65_536) {
        yield piece
        piece = ''
        await new Promise((resolve) => setTimeout(resolve, 0))
      }
    }
    yield `${piece}]`
  }

  /** Forgets the entries of `orgId`, and drops those of its calls still under way. */
  forget(orgId: string): void {
    for (const ticket of this.#underWay) if (ticket.owner === orgId) ticket.dropped = true
    const scope = this.#byOrganisation.get(orgId)
    if (scope) this.#bytes -= scope.bytes
    this.#byOrganisation.delete(orgId)
    this.#refused.removeWhere((s) => s.owner === orgId)
  }

  /** Forgets every entry, and drops those of every call still under way. */
  clear(): void {
    for (const ticket of this.#underWay) ticket.dropped = true
    this.#byOrganisation.clear()
    this.#bytes = 0
    this.#refused.clear()
  }

  #count(scope: Scope, bytes: number): void {
    scope.bytes += bytes
    this.#bytes += bytes
  }

  /**
   * Drops the oldest entry of the organisation whose entries hold the most bytes: `false` when the
   * only entry left is `kept`, the one just added (an entry larger than the whole budget).
   */
  #dropOldestOfLargest(kept: Kept): boolean {
    let largest: [string, Scope] | undefined
    for (const pair of this.#byOrganisation) {
      if (!largest || pair[1].bytes > largest[1].bytes) largest = pair
    }
    if (!largest) return false
    const [orgId, scope] = largest
    if (scope.entries.size === 1 && scope.entries.list()[0] === kept) return false
    const oldest = scope.entries.shift() as Kept
    this.#count(scope, -oldest.bytes)
    if (scope.entries.size === 0) this.#byOrganisation.delete(orgId)
    return true
  }

  /** The entries kept, oldest first; with `orgId`, only those of the calls it owns. */
  #kept(orgId: string | undefined): Kept[] {
    if (orgId !== undefined) return this.#byOrganisation.get(orgId)?.entries.list() ?? []
    const all = [...this.#byOrganisation.values()].flatMap((scope) => scope.entries.list())
    all.push(...this.#refused.list())
    return all.sort((a, b) => a.order - b.order)
  }

  /** `entry` as kept, measured; in the small form of a refused call when `refused`. */
  #keep(entry: JournalEntry, owner: string | undefined, refused: boolean): Kept {
    let { path } = entry
    let request = entry.operation === undefined ? undefined : JSON.stringify(entry.request)
    if (refused) {
      if (path.length > refusedPathLength) path = `${path.slice(0, refusedPathLength)}…`
      if (request !== undefined && request.length > refusedRequestLength) request = 'null'
    }
    const bytes = entryOverheadBytes + heldBytes(path) + (request ? heldBytes(request) : 0)
    return { ...entry, path, request, owner, order: this.#order++, bytes }
  }
}

/** A kept entry as the journal lists it, its fields in their order, its request parsed again. */
function entryOf(kept: Kept): JournalEntry {
  const entry: Record<string, unknown> = {}
  for (const field of journalEntryFields) {
    const value = kept[field]
    if (value !== undefined)
      entry[field] = field === 'request' ? JSON.parse(value as string) : value
  }
  return entry as JournalEntry
}

/** The JSON of {@link entryOf}`(kept)`, its request written as the text kept. */
function jsonOf(kept: Kept): string {
  let json = ''
  for (const field of journalEntryFields) {
    const value = kept[field]
    if (value === undefined) continue
    json += `,"${field}":${field === 'request' ? value : JSON.stringify(value)}`
  }
  return `{${json.slice(1)}}`
}
