import {
  type ClockReading,
  type ClockSetting,
  clockAdvanceSchema,
  clockSettingSchema,
  inClockBounds,
} from '../api/clock-schemas.ts'
import { ApiError, InvalidInput } from '../base/errors.ts'
import { clockRecordOf, mockClockKey } from '../model/clock-index.ts'
import type { ClockRecord } from '../model/records.ts'
import type { RuleContext } from '../rules/context.ts'
import { parseInput } from '../rules/organisations.ts'
import type { Webhooks } from '../webhooks/delivery.ts'
import type { Transactions } from './transactions.ts'

/** What the clock controls work over: the records, the deliveries, and which organisations exist. */
export interface ClockDeps {
  transactions: Transactions
  webhooks: Webhooks
  has(orgId: string): boolean
}

/**
 * The clocks a test controls: the mock's (`orgId` `undefined`), which every organisation without
 * one of its own follows, and each organisation's own. Each reads the real time, stands still at
 * an instant, or runs on from one; a set is a jump of the clock, an advance moves it on and makes
 * the webhook retries that fall due meanwhile before it resolves. An unknown organisation is a 404
 * `Not found`, a bad input a `TypeError` (400) that names the problem.
 *
 * @example
 * await clocks.set('org-1', { frozenAt: '2030-01-01T00:00:00Z' })
 * await clocks.advance('org-1', 301_000) // { now: '2030-01-01T00:05:01.000Z', mode: 'frozen' }
 */
export class ClockControls {
  readonly #deps: ClockDeps

  constructor(deps: ClockDeps) {
    this.#deps = deps
  }

  /** The time and mode of the clock organisation `orgId` reads (the mock's without one). */
  read(orgId?: string): Promise<ClockReading> {
    return this.#deps.transactions.transact((ctx) => {
      this.#known(orgId)
      return readingOf(ctx, orgId)
    })
  }

  /**
   * Sets the mock's clock (`orgId` `undefined`) or an organisation's own: frozen at an instant,
   * running from one, or the real clock again (an organisation's: none of its own, so it follows
   * the mock's). Each webhook retry waiting on it keeps what was left of its delay.
   */
  set(orgId: string | undefined, setting: ClockSetting): Promise<ClockReading> {
    const { transactions, webhooks } = this.#deps
    return webhooks.retime(this.#follows(orgId), () =>
      transactions.transact(async (ctx) => {
        this.#known(orgId)
        const parsed = parseInput(clockSettingSchema, setting)
        const since = ctx.real().toISOString()
        const owner = orgId ?? mockClockKey
        await replaceClock(ctx, owner, clockRecordOf(owner, parsed, since))
        return readingOf(ctx, orgId)
      }),
    )
  }

  /**
   * Moves the clock organisation `orgId` reads (the mock's without one) on by `ms`: a frozen one
   * stands still at its new time, one that runs (the real one too) runs on from there. An
   * organisation that follows the mock's gets a clock of its own for it: the mock's does not move.
   * Resolves once every webhook delivery that falls due up to the new time has been attempted, in
   * order.
   */
  async advance(orgId: string | undefined, ms: number): Promise<ClockReading> {
    const { transactions, webhooks } = this.#deps
    await webhooks.advance(this.#follows(orgId), () =>
      transactions.transact(async (ctx) => {
        this.#known(orgId)
        const by = parseInput(clockAdvanceSchema, { ms }).ms
        const to = ctx.now(orgId).getTime() + by
        if (!inClockBounds(to)) {
          throw new InvalidInput(
            `Invalid request parameters: ms: the clock would read ${new Date(to).toISOString()}, past its bounds (2000-01-01T00:00:00Z to before 2100-01-01T00:00:00Z)`,
          )
        }
        const at = new Date(to).toISOString()
        const setting =
          ctx.db.clocks.modeOf(orgId) === 'frozen' ? { frozenAt: at } : { startAt: at }
        const since = ctx.real().toISOString()
        const owner = orgId ?? mockClockKey
        await replaceClock(ctx, owner, clockRecordOf(owner, setting, since))
      }),
    )
    return this.read(orgId)
  }

  /** 404 `Not found` for an organisation the mock does not have. */
  #known(orgId: string | undefined): void {
    if (orgId !== undefined && !this.#deps.has(orgId)) throw new ApiError('notFound')
  }

  /**
   * Whose deliveries follow the clock of `orgId`: that organisation's; for the mock's, those of
   * every organisation without a clock of its own, and of events of none.
   */
  #follows(orgId: string | undefined): (of: string | undefined) => boolean {
    if (orgId !== undefined) return (of) => of === orgId
    const { transactions } = this.#deps
    return (of) => of === undefined || transactions.ctx.db.clocks.get(of) === undefined
  }
}

/** What the clock controls answer: the time and mode of the clock `orgId` reads. */
function readingOf(ctx: RuleContext, orgId: string | undefined): ClockReading {
  return { now: ctx.now(orgId).toISOString(), mode: ctx.db.clocks.modeOf(orgId) }
}

/** Replaces the clock of `owner` with `record` (none: the real clock, or the mock's). */
async function replaceClock(
  ctx: RuleContext,
  owner: string,
  record: ClockRecord | undefined,
): Promise<void> {
  const { db } = ctx
  const current = db.clocks.get(owner)
  // Replaced, not changed in place: the clocks' index reads each record once.
  if (current) db.collections.clocks.delete(current)
  if (record) await db.collections.clocks.create(record)
}
