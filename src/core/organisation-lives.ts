/**
 * One life of an organisation: from its creation (or the load that brought it) to its removal.
 * Compared by identity only: a new organisation of the same id has a new life.
 */
export type OrganisationLife = object

/**
 * The lives of the organisations the mock has, so that what a call counts (its coverage, its
 * journal entry, its deliveries) goes to the life it was authenticated in: a call of a removed
 * organisation that ends after the removal never counts for a new organisation of the same id.
 * A life is made when first asked for, while its organisation exists; {@link end} ends it.
 *
 * @example
 * const life = lives.of('org-1') // when the call is authenticated
 * if (lives.isCurrent('org-1', life)) coverage.count('org-1', id) // when it ends
 */
export class OrganisationLives {
  readonly #has: (orgId: string) => boolean
  readonly #lives = new Map<string, OrganisationLife>()

  constructor(has: (orgId: string) => boolean) {
    this.#has = has
  }

  /** The life organisation `orgId` is in now; none for one the mock does not have. */
  of(orgId: string | undefined): OrganisationLife | undefined {
    if (orgId === undefined) return undefined
    let life = this.#lives.get(orgId)
    if (life === undefined && this.#has(orgId)) {
      life = {}
      this.#lives.set(orgId, life)
    }
    return life
  }

  /** Whether organisation `orgId` is still in `life`. */
  isCurrent(orgId: string, life: OrganisationLife | undefined): boolean {
    return life !== undefined && this.#lives.get(orgId) === life && this.#has(orgId)
  }

  /** Ends the life of organisation `orgId`, removed. */
  end(orgId: string): void {
    this.#lives.delete(orgId)
  }

  /** Ends the lives of the organisations the mock no longer has (after a reset of the whole mock). */
  endGone(): void {
    for (const orgId of this.#lives.keys()) if (!this.#has(orgId)) this.#lives.delete(orgId)
  }
}
