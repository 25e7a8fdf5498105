import {
  type Gateway,
  gatewaySettingSchema,
  type OrganisationGatewaySetting,
  organisationGatewaySchema,
} from '../api/gateway.ts'
import { ApiError } from '../base/errors.ts'
import { gatewayOfRecord, gatewayRecordOf } from '../model/gateways.ts'
import type { RuleContext } from './context.ts'
import { parseInput } from './organisations.ts'

/** The key of the mock's own gateway among the gateways: no organisation's id is empty. */
const mockGatewayKey = ''

/** The `gateway` options: what the mock stands behind until a test sets another. */
function optionGateway(ctx: RuleContext): Gateway {
  const { gateway, gatewayReadTimeoutMs: readTimeoutMs } = ctx
  return gateway === 'nginx'
    ? { gateway, readTimeoutMs, buffering: ctx.gatewayBuffering }
    : { gateway, readTimeoutMs }
}

/**
 * The gateway in front of the calls organisation `owner` owns (of a call owned by none, or
 * `undefined` for the mock's): its own, else the mock's set at run time, else the options'. Reads
 * no record while no gateway is set.
 *
 * @example gatewayOf(ctx, 'acme').gateway // 'none'
 */
export function gatewayOf(ctx: RuleContext, owner: string | undefined): Gateway {
  const { gateways } = ctx.db
  if (gateways.size === 0) return optionGateway(ctx)
  const record =
    (owner === undefined ? undefined : gateways.get(owner)) ?? gateways.get(mockGatewayKey)
  return record ? gatewayOfRecord(record) : optionGateway(ctx)
}

/**
 * Sets the mock's gateway (`orgId` `undefined`) or an organisation's own (`{gateway: null}`: none
 * of its own, it follows the mock's), and answers the gateway in force. 404 `Not found` for an
 * organisation the mock does not have, a `TypeError` (400) naming the problem for anything else.
 *
 * @example await setGateway(ctx, 'acme', { gateway: 'nginx', readTimeoutMs: 5000 })
 */
export async function setGateway(
  ctx: RuleContext,
  orgId: string | undefined,
  setting: OrganisationGatewaySetting,
): Promise<Gateway> {
  const { db } = ctx
  if (orgId !== undefined && !db.organisations.get(orgId)) throw new ApiError('notFound')
  const parsed =
    orgId === undefined
      ? parseInput(gatewaySettingSchema, setting)
      : parseInput(organisationGatewaySchema, setting)
  const owner = orgId ?? mockGatewayKey
  const own = db.gateways.get(owner)
  // Replaced, not changed in place: the index reads each record once.
  if (own) db.collections.gateways.delete(own)
  if (parsed.gateway !== null) {
    await db.collections.gateways.create(
      gatewayRecordOf(owner, { ...parsed, gateway: parsed.gateway }),
    )
  }
  return gatewayOf(ctx, orgId)
}

/**
 * The gateway in force for organisation `orgId` (the mock's for `undefined`); 404 `Not found` for
 * an organisation the mock does not have.
 */
export function readGateway(ctx: RuleContext, orgId: string | undefined): Gateway {
  if (orgId !== undefined && !ctx.db.organisations.get(orgId)) throw new ApiError('notFound')
  return gatewayOf(ctx, orgId)
}
