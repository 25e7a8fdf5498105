import * as z from 'zod'
import { refusedAddressClass } from './addresses.ts'
import { webhookLimits } from './limits.ts'
import { webhookSecretKey } from './signature.ts'

/**
 * An event type: what Svix accepts as one (letters, digits, `.`, `_`, `-`), e.g.
 * `notifications.sent`.
 *
 * @example webhookEventTypeSchema.parse('user.course.started')
 */
export const webhookEventTypeSchema = z
  .string()
  .min(1)
  .max(256)
  .regex(/^[A-Za-z0-9._-]+$/, 'expected letters, digits, ".", "_" or "-"')

const receiverUrlSchema = z
  .string()
  .max(webhookLimits.urlLength)
  .pipe(z.url({ protocol: /^https?$/, error: 'expected an http: or https: URL' }))
  // zod runs these after z.url refused the text too: a text that is no URL is that refusal alone.
  .refine((url) => {
    const { username, password } = URL.parse(url) ?? { username: '', password: '' }
    return username === '' && password === ''
  }, 'must not carry credentials')
  .refine(
    (url) => refusedAddressClass(URL.parse(url)?.hostname ?? '') === undefined,
    'must not be a link-local address (169.254.0.0/16, fe80::/10) or a cloud metadata address, in any of its forms (IPv4 inside IPv6 included)',
  )

/**
 * A webhook endpoint to register: where to post, the signing secret (`whsec_<base64>`,
 * generated when omitted) and the event types it receives (every type when omitted).
 *
 * @example webhookEndpointInputSchema.parse({ url: 'http://127.0.0.1:3000/webhooks' })
 */
export const webhookEndpointInputSchema = z.strictObject({
  url: receiverUrlSchema,
  secret: z
    .string()
    .refine(
      (secret) => webhookSecretKey(secret) !== undefined,
      'expected whsec_ and the base64 of 16 to 64 bytes',
    )
    .optional(),
  events: z
    .array(webhookEventTypeSchema)
    .min(1)
    .max(webhookLimits.eventTypesPerEndpoint)
    .optional(),
})
export type WebhookEndpointInput = z.input<typeof webhookEndpointInputSchema>

/**
 * A webhook endpoint to register at run time: with `orgId`, that organisation's (it receives only
 * that organisation's events, and a tenant handle sees it); without, the mock's (every event).
 *
 * @example ownedWebhookEndpointInputSchema.parse({ url: 'http://127.0.0.1:3000/webhooks', orgId: 'org-1' })
 */
export const ownedWebhookEndpointInputSchema = webhookEndpointInputSchema.extend({
  orgId: z.string().min(1).max(1024).optional().describe('the organisation that owns it'),
})
export type OwnedWebhookEndpointInput = z.input<typeof ownedWebhookEndpointInputSchema>

/**
 * A registered webhook endpoint. `events` is `null` when it receives every type; `orgId` names
 * the organisation that owns it, absent for one of the mock's.
 *
 * @example webhookEndpointSchema.parse({ id: 'ep_…', url, secret: 'whsec_…', events: null })
 */
export const webhookEndpointSchema = z.strictObject({
  id: z.string(),
  url: z.string(),
  secret: z.string(),
  events: z.array(z.string()).nullable(),
  orgId: z.string().optional(),
})
export type WebhookEndpoint = z.output<typeof webhookEndpointSchema>

/** When an event happened: milliseconds and `Z`, e.g. `2025-11-06T09:58:58.233Z`. */
const eventTimestampSchema = z.iso.datetime({ precision: 3 })

/**
 * The envelope of every delivery, as `webhooks.md` shows it.
 *
 * @example webhookEnvelopeSchema.parse(JSON.parse(deliveredBody))
 */
export const webhookEnvelopeSchema = z.object({
  object: z.literal('event'),
  type: z.string(),
  api_version: z.literal('2022-11-15'),
  timestamp: eventTimestampSchema,
  data: z.record(z.string(), z.unknown()),
})
export type WebhookEnvelope = z.output<typeof webhookEnvelopeSchema>

/**
 * An event as raised: its message id (`msg_…`, the `svix-id` of every attempt) and the envelope.
 *
 * @example raisedWebhookEventSchema.parse(await (await fetch(`${url}/__mock/events`, …)).json())
 */
export const raisedWebhookEventSchema = webhookEnvelopeSchema.extend({ id: z.string() })
export type RaisedWebhookEvent = z.output<typeof raisedWebhookEventSchema>

/**
 * One attempt of a delivery: when it started, and the status the receiver answered or why there
 * was none (a timeout, a network error).
 *
 * @example webhookAttemptSchema.parse({ at: '2025-11-06T09:58:58.233Z', status: 500 })
 */
export const webhookAttemptSchema = z.object({
  at: eventTimestampSchema,
  status: z.int().optional(),
  error: z.string().optional(),
})
export type WebhookAttempt = z.output<typeof webhookAttemptSchema>

/**
 * One message to one endpoint, as `api.webhooks.deliveries()` and
 * `GET /__mock/webhooks/deliveries` list it.
 *
 * @example webhookDeliverySchema.array().parse(api.webhooks.deliveries())
 */
export const webhookDeliverySchema = z.object({
  /** The message id: the `svix-id` of every attempt. */
  id: z.string(),
  /** The endpoint's id. */
  endpoint: z.string(),
  type: z.string(),
  attempts: z.array(webhookAttemptSchema),
  delivered: z.boolean(),
})
export type WebhookDelivery = z.output<typeof webhookDeliverySchema>
