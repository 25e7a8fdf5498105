import {
  type Gateway,
  type GatewaySetting,
  gatewayOfSetting,
  gatewaySettingSchema,
} from '../api/gateway.ts'
import type { GatewayRecord } from './records.ts'

/**
 * The record of a gateway `owner` sets (an organisation's id, or `""` for the mock's), its
 * defaults filled in. `setting` is one its schema accepted.
 *
 * @example gatewayRecordOf('acme', { gateway: 'haproxy' }) // { orgId: 'acme', gateway: 'haproxy', readTimeoutMs: 60000, buffering: null }
 */
export function gatewayRecordOf(owner: string, setting: GatewaySetting): GatewayRecord {
  const gateway = gatewayOfSetting(gatewaySettingSchema.parse(setting))
  return { orgId: owner, ...gateway, buffering: gateway.buffering ?? null }
}

/** The gateway a record holds, as `GET …/gateway` shows it. */
export function gatewayOfRecord({ gateway, readTimeoutMs, buffering }: GatewayRecord): Gateway {
  return gateway === 'nginx'
    ? { gateway, readTimeoutMs, buffering: buffering ?? true }
    : { gateway, readTimeoutMs }
}
