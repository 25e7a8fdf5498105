/** The request bodies being read at once, across every connection, at most (64 MiB). */
export const maxBodiesBytes = 64 * 1024 * 1024

/**
 * The most of {@link maxBodiesBytes} one source holds at once (a quarter): the bodies sent with one
 * API key, with the control token, or with no credential at all (the controls without a token).
 */
export const maxSourceBytes = maxBodiesBytes / 4

/**
 * The bytes of request bodies being read, in all and per source (the credential that let the
 * request in), each body counted from its announced length: no source can hold the whole budget,
 * so a client flooding the server with slow bodies leaves room for every other tenant's calls.
 *
 * @example
 * if (budget.take(key, announced)) { …read…; budget.give(key, announced) }
 */
export class BodyBudget {
  #reading = 0
  readonly #bySource = new Map<string, number>()

  /** Holds `bytes` more for `source`; `false` (nothing held) past the budget or the source's share. */
  take(source: string, bytes: number): boolean {
    const held = this.#bySource.get(source) ?? 0
    if (this.#reading + bytes > maxBodiesBytes || held + bytes > maxSourceBytes) return false
    this.#reading += bytes
    this.#bySource.set(source, held + bytes)
    return true
  }

  /** Lets go of `bytes` that `source` held. */
  give(source: string, bytes: number): void {
    this.#reading -= bytes
    const held = (this.#bySource.get(source) ?? 0) - bytes
    if (held > 0) this.#bySource.set(source, held)
    else this.#bySource.delete(source)
  }
}
