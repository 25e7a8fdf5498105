import * as z from 'zod'

// The gateway in front of the API: the wire of `/__mock/gateway` and
// `/__mock/organisations/{orgId}/gateway`, and the `gateway` a data file's organisation and
// `POST /__mock/organisations` may start with.

/**
 * What may stand in front of the API: nothing (`none`, the mock answers as the API's own server),
 * or nginx 1.22 or haproxy 2.6 as Debian ships them.
 */
export const gatewayNames = ['none', 'nginx', 'haproxy'] as const

export type GatewayName = (typeof gatewayNames)[number]

/** How long a gateway waits for the API between two reads by default: nginx's and haproxy's usual 60 s. */
export const defaultReadTimeoutMs = 60_000

/** The longest read timeout a gateway may be given: an hour. */
export const maxReadTimeoutMs = 3_600_000

export const gatewayNameSchema = z
  .enum(gatewayNames, {
    error: ({ input }) =>
      `expected none, nginx or haproxy, not ${JSON.stringify(String(input).slice(0, 60))}`,
  })
  .describe('what stands in front of the API: none, nginx or haproxy')

export const readTimeoutSchema = z
  .int({ error: `expected a whole number from 1 to ${maxReadTimeoutMs}` })
  .min(1, { error: `expected a whole number from 1 to ${maxReadTimeoutMs}` })
  .max(maxReadTimeoutMs, { error: `expected a whole number from 1 to ${maxReadTimeoutMs}` })
  .describe(
    "how long the gateway waits for the API between two reads, in milliseconds (nginx's proxy_read_timeout, haproxy's timeout server)",
  )

const settingShape = {
  readTimeoutMs: readTimeoutSchema
    .optional()
    .describe(`${readTimeoutSchema.description}; default ${defaultReadTimeoutMs}`),
  buffering: z
    .boolean()
    .optional()
    .describe("nginx only: whether it buffers the API's answer before sending it (default true)"),
}

/** `buffering` is nginx's: refused with another gateway (and with none of an organisation's own). */
const bufferingIsNginx: [
  (setting: { gateway: GatewayName | null; buffering?: boolean | undefined }) => boolean,
  { message: string; path: PropertyKey[] },
] = [
  ({ gateway, buffering }) => buffering === undefined || gateway === 'nginx',
  { message: 'buffering is an nginx setting: none and haproxy take none', path: ['buffering'] },
]

/**
 * A gateway as a test sets it: its name, its read timeout and, for nginx, whether it buffers the
 * API's answers (nginx's `proxy_buffering`, on by default). `buffering` with another gateway is
 * refused.
 *
 * @example gatewaySettingSchema.parse({ gateway: 'nginx', readTimeoutMs: 5000, buffering: false })
 */
export const gatewaySettingSchema = z
  .strictObject({ gateway: gatewayNameSchema, ...settingShape })
  .refine(...bufferingIsNginx)
  .describe('the gateway in front of the API: { gateway, readTimeoutMs?, buffering? }')

export type GatewaySetting = z.input<typeof gatewaySettingSchema>

/**
 * A gateway with its defaults filled in: what `GET …/gateway` answers and what the failures read.
 * `buffering` is shown for nginx only.
 *
 * @example gatewayOfSetting({ gateway: 'nginx' }) // { gateway: 'nginx', readTimeoutMs: 60000, buffering: true }
 */
export const gatewaySchema = z.strictObject({
  gateway: gatewayNameSchema,
  readTimeoutMs: z.int(),
  buffering: z.boolean().optional(),
})

export type Gateway = z.output<typeof gatewaySchema>

/** `setting` with its defaults filled in. */
export function gatewayOfSetting(setting: z.output<typeof gatewaySettingSchema>): Gateway {
  const readTimeoutMs = setting.readTimeoutMs ?? defaultReadTimeoutMs
  return setting.gateway === 'nginx'
    ? { gateway: 'nginx', readTimeoutMs, buffering: setting.buffering ?? true }
    : { gateway: setting.gateway, readTimeoutMs }
}

/**
 * What `PUT /__mock/organisations/{orgId}/gateway` takes: a gateway, or `{"gateway":null}` (no
 * gateway of its own: it follows the mock's).
 *
 * @example organisationGatewaySchema.parse({ gateway: null })
 */
export const organisationGatewaySchema = z
  .strictObject({
    gateway: gatewayNameSchema
      .nullable()
      .describe("what stands in front of the organisation's calls; null: the mock's"),
    ...settingShape,
  })
  .refine(...bufferingIsNginx)
  .refine(({ gateway, readTimeoutMs }) => gateway !== null || readTimeoutMs === undefined, {
    message: 'no gateway of its own takes no readTimeoutMs',
    path: ['readTimeoutMs'],
  })

export type OrganisationGatewaySetting = z.input<typeof organisationGatewaySchema>
