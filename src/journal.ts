import { z } from 'zod'

/** One API call, as the journal keeps it: never a key, a token or a query string. */
export interface JournalEntry {
  time: string
  method: string
  path: string
  status: number
  durationMs: number
}

/**
 * A ring buffer that keeps the newest `capacity` entries: the journal of API calls, and the
 * webhook deliveries.
 */
export class Journal<T = JournalEntry> {
  readonly #entries: T[] = []
  readonly #capacity: number
  #next = 0

  constructor(capacity: number) {
    this.#capacity = capacity
  }

  add(entry: T): void {
    if (this.#entries.length < this.#capacity) this.#entries.push(entry)
    else this.#entries[this.#next] = entry
    this.#next = (this.#next + 1) % this.#capacity
  }

  /** The entries, oldest first. */
  list(): T[] {
    if (this.#entries.length < this.#capacity) return [...this.#entries]
    return [...this.#entries.slice(this.#next), ...this.#entries.slice(0, this.#next)]
  }

  clear(): void {
    this.#entries.length = 0
    this.#next = 0
  }
}

/**
 * The query of `GET /__mock/requests` and `GET /__mock/webhooks/deliveries`: `limit` keeps the
 * newest entries only.
 */
export const journalQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional(),
})

/**
 * The newest `limit` of `entries` (oldest first), or all of them without a limit: what a
 * `journalQuerySchema` query asks for.
 *
 * @example
 * newestEntries(['a', 'b', 'c'], 2) // ['b', 'c']
 */
export function newestEntries<T>(entries: T[], limit: number | undefined): T[] {
  return limit ? entries.slice(-limit) : entries
}
