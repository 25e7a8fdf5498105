/**
 * Who a holding is charged to: every request has one source, the organisation whose API key let
 * it in ({@link organisationSource}: its `orgId`), the control token ({@link controlSource}), or
 * none ({@link noSource}: no credential, a control without a token, a call refused). The two
 * that are no organisation are symbols, so that no `orgId` is ever taken for them.
 */
export type Source = string | symbol

/** The share of each mock-wide bound one source holds at most, by default: a quarter. */
export const defaultSourceShare = 0.25

/** The source of a request with no credential, or one refused before its credential passed. */
export const noSource: Source = Symbol('none')

/** The source of a control request the control token let in. */
export const controlSource: Source = Symbol('control')

/**
 * The source of a request organisation `orgId`'s API key let in: its `orgId` itself (a string the
 * mock holds already, so charging a call builds nothing), never equal to the two above.
 *
 * @example organisationSource('acme') // 'acme'
 */
export function organisationSource(orgId: string): Source {
  return orgId
}

/**
 * A source's share of a mock-wide bound of `cap`: `share` of it (a fraction), at least one.
 *
 * @example shareOf(1000, 0.25) // 250
 */
export function shareOf(cap: number, share: number): number {
  return Math.max(1, Math.floor(cap * share))
}

/**
 * What each source holds of one mock-wide bound (connections, bytes of bodies, queued faults,
 * pending deliveries), and the rule of shares: a source takes only within the bound and within its
 * share, so no source holds more than its share and one within its share is never refused because
 * of another. Holdings the mock can take back (a connection) may go past the share while the bound
 * has room: {@link overShare} then names the source that gives way when another wants one.
 *
 * @example
 * const faults = new Shares(16 * 1024 * 1024, 0.25)
 * if (faults.take('org:acme', 128)) { …queue…; later faults.give('org:acme', 128) }
 */
export class Shares {
  /** The mock-wide bound. */
  readonly cap: number
  /** The most of {@link cap} one source takes (see {@link shareOf}). */
  readonly share: number
  #total = 0
  readonly #held = new Map<Source, number>()

  constructor(cap: number, share: number) {
    this.cap = cap
    this.share = shareOf(cap, share)
  }

  /** What every source holds together. */
  get total(): number {
    return this.#total
  }

  /** What `source` holds. */
  heldBy(source: Source): number {
    return this.#held.get(source) ?? 0
  }

  /** Whether `source` may hold `amount` more: the bound has room, and it stays within its share. */
  fits(source: Source, amount = 1): boolean {
    return this.#total + amount <= this.cap && this.heldBy(source) + amount <= this.share
  }

  /** Holds `amount` more for `source` when it {@link fits}; `false` (nothing held) otherwise. */
  take(source: Source, amount = 1): boolean {
    if (!this.fits(source, amount)) return false
    this.add(source, amount)
    return true
  }

  /** Holds `amount` more for `source`, whatever the bound: for a holding that can be taken back. */
  add(source: Source, amount = 1): void {
    this.#total += amount
    this.#held.set(source, this.heldBy(source) + amount)
  }

  /** Lets go of `amount` that `source` held. */
  give(source: Source, amount = 1): void {
    this.#total -= amount
    const held = this.heldBy(source) - amount
    if (held > 0) this.#held.set(source, held)
    else this.#held.delete(source)
  }

  /** Lets go of everything every source holds. */
  clear(): void {
    this.#total = 0
    this.#held.clear()
  }

  /** The source holding the most, when it holds more than its share: the one that gives way. */
  overShare(): Source | undefined {
    let most: Source | undefined
    let mostHeld = this.share
    for (const [source, held] of this.#held) {
      if (held > mostHeld) {
        most = source
        mostHeld = held
      }
    }
    return most
  }
}
