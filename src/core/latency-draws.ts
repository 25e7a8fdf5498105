import { delayOf, type Latency } from '../api/latency.ts'
import { hashOf, seededRandom } from '../base/seeded-random.ts'

/**
 * The delays a mock's latencies give, drawn from its seed: one sequence per organisation (and one
 * for the calls of none), so that the same seed, organisation and sequence of calls give the same
 * delays whatever other tenants do meanwhile. A reset of the organisation (or of the mock) starts
 * its sequence again.
 *
 * @example
 * const draws = new LatencyDraws(1)
 * draws.next({ medianMs: 80, p99Ms: 900 }, 'org-1') // the same on every run
 */
export class LatencyDraws {
  readonly #seed: number
  /** Each organisation's generator (`''`: the calls of none); at most one per organisation. */
  readonly #sequences = new Map<string, () => number>()

  constructor(seed: number) {
    this.#seed = seed
  }

  /** The delay `latency` gives the next call of `owner`, in whole milliseconds. */
  next(latency: Latency, owner: string | undefined): number {
    const key = owner ?? ''
    let random = this.#sequences.get(key)
    if (random === undefined) {
      random = seededRandom(hashOf(this.#seed, 'latency', key))
      this.#sequences.set(key, random)
    }
    return delayOf(latency, random(), random())
  }

  /** Starts organisation `orgId`'s sequence again. */
  forget(orgId: string): void {
    this.#sequences.delete(orgId)
  }

  /** Starts every sequence again. */
  clear(): void {
    this.#sequences.clear()
  }
}
