import { rateLimitedLines } from '../base/rate-limited-lines.ts'
import { createTokenSource } from '../base/secrets.ts'
import { type Clock, systemClock } from '../base/time.ts'
import type { Database } from '../model/database.ts'
import type { ResolvedMockApiOptions } from '../options/mock-api-options.ts'

/**
 * What a rule of the API answers: the body of its 200, the answer shape it took (identify's:
 * `full` or a case's name), which the journal notes, and the kind of 200 it is.
 *
 * @example const { body, shape } = await identifyUser(ctx, 'org-1', request)
 */
export interface Answered<R> {
  body: R
  shape?: string
  /** The kind of 200 it is, when its route gives more than one (identify: `created`, `updated`). */
  outcome?: string
}

/** What every rule reads besides its arguments: the database, the clock and the options it obeys. */
export interface RuleContext
  extends Pick<
    ResolvedMockApiOptions,
    | 'tokenTtlSeconds'
    | 'strictUserGroups'
    | 'authFailureStatus'
    | 'maxUsers'
    | 'maxUserGroupsPerOrganisation'
    | 'maxTokensPerUser'
    | 'sessionTtlSeconds'
    | 'maxSessionsPerUser'
    | 'shapes'
    | 'seed'
    | 'latency'
  > {
  db: Database
  now: Clock
  generateToken: () => string
  /** A fresh `userId` for a user that identify creates. */
  generateUserId: () => string
  /**
   * Tells the operator of a limit reached: one line, on standard error where there is one (at most
   * one a second of each kind, then a count of the rest).
   */
  warn: (message: string) => void
}

/**
 * The context of a mock with `options` over `db`: the system clock, random tokens and `userId`s,
 * and warnings on the console, unless the options say otherwise.
 *
 * @example
 * const ctx = createRuleContext(resolveOptions({ maxUsers: 10 }), new Database())
 */
export function createRuleContext(options: ResolvedMockApiOptions, db: Database): RuleContext {
  return {
    db,
    now: options.now ?? systemClock,
    tokenTtlSeconds: options.tokenTtlSeconds,
    strictUserGroups: options.strictUserGroups,
    authFailureStatus: options.authFailureStatus,
    maxUsers: options.maxUsers,
    maxUserGroupsPerOrganisation: options.maxUserGroupsPerOrganisation,
    maxTokensPerUser: options.maxTokensPerUser,
    sessionTtlSeconds: options.sessionTtlSeconds,
    maxSessionsPerUser: options.maxSessionsPerUser,
    shapes: options.shapes,
    seed: options.seed,
    latency: options.latency,
    generateToken: options.generateToken ?? createTokenSource(),
    generateUserId: () => crypto.randomUUID(),
    // A line a second of each kind, and a count of the rest: a flood of refused calls is one line.
    warn: rateLimitedLines((message) => console.error(`identify-api-mock: ${message}`)),
  }
}
