import { type Latency, latencyOfJson, organisationLatencySchema } from '../api/latency.ts'
import { ApiError } from '../base/errors.ts'
import type { RuleContext } from './context.ts'
import { parseInput } from './organisations.ts'

/**
 * The latency of the calls organisation `owner` owns (or of a call owned by none): its own, or
 * the mock's `latency`; `undefined` for none. Reads no record while no organisation has one.
 */
export function latencyOf(ctx: RuleContext, owner: string | undefined): Latency | undefined {
  const own = ctx.db.organisationLatencies
  if (owner === undefined || own.size === 0) return ctx.latency
  const record = own.get(owner)
  return record ? (latencyOfJson(record.latency) ?? ctx.latency) : ctx.latency
}

/**
 * Sets organisation `orgId`'s own latency (`null`: the mock's again): 404 `Not found` for an
 * organisation the mock does not have, a `TypeError` (400) for anything but a latency.
 *
 * @example await setOrganisationLatency(ctx, 'acme', { medianMs: 80, p99Ms: 900 })
 */
export async function setOrganisationLatency(
  ctx: RuleContext,
  orgId: string,
  latency: unknown,
): Promise<void> {
  const { db } = ctx
  if (!db.organisations.get(orgId)) throw new ApiError('notFound')
  const { latency: parsed } = parseInput(organisationLatencySchema, { latency })
  const own = db.organisationLatencies.get(orgId)
  if (parsed === null) {
    if (own) db.collections.organisationLatencies.delete(own)
  } else if (own) db.update('organisationLatencies', own, { latency: JSON.stringify(parsed) })
  else {
    await db.collections.organisationLatencies.create({ orgId, latency: JSON.stringify(parsed) })
  }
}
