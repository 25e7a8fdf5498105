import type { ResolvedMockApiOptions } from '../options/mock-api-options.ts'
import type { MockState } from './mock-state.ts'

/** The credentials a client can use: each organisation with its API keys in clear. */
export interface Credentials {
  orgId: string
  name: string
  apiKeys: string[]
}

/** The data a mock starts from and returns to on reset: its records, and the keys in clear. */
export interface Dataset {
  state: MockState
  credentials: Credentials[]
}

/**
 * Builds a mock's starting data from its options. The core takes it as an argument, so that it
 * never imports the fixtures that build it (fixtures depend on the core, not the other way). Its
 * organisations and credentials do not depend on `usersPerOrganisation`: a start from a state file
 * asks for them without users.
 *
 * @example
 * const seed: Seed = () => ({ state: emptyState, credentials: [] })
 */
export type Seed = ((options: ResolvedMockApiOptions) => Dataset) & {
  /**
   * The same dataset built in steps (yielding between them), if the seed can: what an organisation
   * created at run time with many users is built with, other calls answered between the steps.
   */
  readonly steps?: (options: ResolvedMockApiOptions) => Generator<void, Dataset>
}
