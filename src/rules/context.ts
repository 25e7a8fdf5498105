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

/** What every rule reads besides its arguments: the database, the clocks and the options it obeys. */
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
    | 'gateway'
    | 'gatewayReadTimeoutMs'
    | 'gatewayBuffering'
  > {
  db: Database
  /**
   * The real clock (the `now` option, else the system's): what a clock in `real` mode reads, and
   * what stays real whatever a test sets (the journal's `time`, a webhook's `svix-timestamp`).
   */
  real: Clock
  /**
   * The time of the clock that organisation `orgId` reads: its own, else the mock's (the mock's
   * for `undefined`), else the real one. Every time a rule stamps or compares is its owner's.
   */
  now(orgId: string | undefined): Date
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
  const real = options.now ?? systemClock
  return {
    db,
    real,
    now: clocksOf(db, real),
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
    gateway: options.gateway,
    gatewayReadTimeoutMs: options.gatewayReadTimeoutMs,
    gatewayBuffering: options.gatewayBuffering,
    generateToken: options.generateToken ?? createTokenSource(),
    generateUserId: () => crypto.randomUUID(),
    // A line a second of each kind, and a count of the rest: a flood of refused calls is one line.
    warn: rateLimitedLines((message) => console.error(`identify-api-mock: ${message}`)),
  }
}

/**
 * `ctx` over the records of `db` (a load or a reset replaced them): the same context, its clocks
 * those `db` keeps.
 *
 * @example transactions.ctx = withDatabase(ctx, new Database())
 */
export function withDatabase(ctx: RuleContext, db: Database): RuleContext {
  return { ...ctx, db, now: clocksOf(db, ctx.real) }
}

/** The time of each organisation's clock among those `db` keeps, on `real`. */
function clocksOf(db: Database, real: Clock): RuleContext['now'] {
  const { clocks } = db
  // No clock set: the real clock itself, at no cost beyond it.
  return (orgId) => (clocks.size === 0 ? real() : new Date(clocks.timeOf(orgId, real().getTime())))
}
