import { z } from 'zod'
import { describeIssues } from './errors.ts'
import type { Clock } from './time.ts'
import { svixRetrySchedule, webhookLimits } from './webhooks/limits.ts'
import { webhookEndpointInputSchema } from './webhooks/schemas.ts'

/**
 * Visible ASCII, 0x21 to 0x7E: the characters of every secret an HTTP header carries as it is.
 *
 * @example visibleAscii.test('sk_test_abc') // true; 'clé' and 'a b' are false
 */
export const visibleAscii = /^[\x21-\x7e]+$/

/**
 * A secret a client sends in an HTTP header (an API key, the control token): visible ASCII only,
 * 0x21 to 0x7E, which every client can send as it is and no header parser alters.
 *
 * @example headerSecretSchema.parse('sk_test_abc') // 'sk_test_abc'; 'clé' throws
 */
export const headerSecretSchema = z
  .string()
  .regex(visibleAscii, 'must be visible ASCII only (0x21 to 0x7E), as an HTTP header carries it')

/**
 * A whole number from `min` (to `max`), refused with one message that says so, as the CLI prints
 * it after the flag.
 *
 * @example wholeNumber(1).parse(0) // throws 'expected a whole number of 1 or more'
 */
export function wholeNumber(min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER) {
  const error =
    max < Number.MAX_SAFE_INTEGER
      ? `expected a whole number from ${min} to ${max}`
      : min > Number.MIN_SAFE_INTEGER
        ? `expected a whole number of ${min} or more`
        : 'expected a whole number'
  return z.int({ error }).min(min, { error }).max(max, { error })
}

const organisationSchema = z.strictObject({
  orgId: z.string().min(1),
  apiKeys: z.array(headerSecretSchema).default([]),
  /** Fixture users to seed it with; `usersPerOrganisation` when omitted, 0 for none. */
  users: wholeNumber(0).optional(),
})

/** An organisation a consumer adds to the seeded data, with its API keys in clear. */
export type OrganisationOptions = z.input<typeof organisationSchema>

/**
 * The bounds of a running mock, so that no client can fill its memory: each an option of
 * `createMockApi` and `startServer`, and a flag of `serve`.
 */
const limitsShape = {
  /** Users the mock holds at most; an identify that would create one more answers 500. */
  maxUsers: wholeNumber(1).default(200_000),
  /** User groups per organisation at most; an identify that would create more answers 400. */
  maxUserGroupsPerOrganisation: wholeNumber(1).default(10_000),
  /** Sign-in tokens kept per user, redeemed or not; an 11th drops the user's oldest. */
  maxTokensPerUser: wholeNumber(1).default(10),
  /** How long a web-view session lasts, in seconds (the cookie's `Max-Age`). */
  sessionTtlSeconds: wholeNumber(1).default(3600),
  /** Web-view sessions kept per user; an 11th drops the user's oldest. */
  maxSessionsPerUser: wholeNumber(1).default(10),
  /**
   * Everything stored, as the JSON size of the records (in characters); an operation that would
   * pass it answers 500 and changes nothing.
   */
  maxStateBytes: wholeNumber(1).default(256 * 1024 * 1024),
}

const retryDelayError = 'expected whole numbers of milliseconds up to a day, e.g. 100,1000,5000'

/**
 * The options of `createMockApi` and of the standalone server; every one has a default.
 *
 * @example
 * createMockApi({ seed: 7, organisations: [{ orgId: 'acme', apiKeys: ['test-key'] }] })
 */
export const mockApiOptionsSchema = z.strictObject({
  /** The fixture seed: the same seed always gives the same seeded data. */
  seed: wholeNumber().default(1),
  /** How many organisations the seed creates (`org-1`, `org-2`, …); 0 for none. */
  seededOrganisations: wholeNumber(0).default(2),
  /** Fixture users per seeded organisation, those of `organisations` included. */
  usersPerOrganisation: wholeNumber(0).default(8),
  /** Organisations and API keys added to the seeded data. */
  organisations: z.array(organisationSchema).default([]),
  /** Pins the MSW handlers to one origin (and path prefix); by default they match any origin. */
  baseUrl: z.url().optional(),
  /** How long a sign-in token stays valid. */
  tokenTtlSeconds: z
    .number({ error: 'expected a number above 0' })
    .positive({ error: 'expected a number above 0' })
    .default(300),
  /** The clock every timestamp and expiry comes from. */
  now: z.custom<Clock>((value) => typeof value === 'function').optional(),
  /** Makes sign-in tokens (for tests that need fixed tokens); by default 256 random bits, as hex. */
  generateToken: z.custom<() => string>((value) => typeof value === 'function').optional(),
  /** Refuse (400) `userGroups` the organisation does not have, instead of creating them. */
  strictUserGroups: z.boolean().default(false),
  /** The status for a missing, malformed or unknown API key: 401 (default) or 403. */
  authFailureStatus: z.literal([401, 403]).default(401),
  /** A delay added to every API answer, in milliseconds. */
  delayMs: wholeNumber(0).default(0),
  /** The `type` of the messages the emulated web view posts to the app. */
  webViewMessages: z
    .strictObject({
      close: z.string().min(1).default('webview:close'),
      sessionRefresh: z.string().min(1).default('webview:session-refresh'),
    })
    .prefault({}),
  /** How many API calls the journal keeps (the newest). */
  journalSize: wholeNumber(1).default(1000),
  /**
   * Webhook endpoints (`{ url, secret?, events? }`), registered at start: they survive a reset.
   * A secret is generated for each one that has none.
   */
  webhooks: z.array(webhookEndpointInputSchema).max(webhookLimits.endpoints).default([]),
  /**
   * The delays before each webhook retry, in milliseconds, each counted from the attempt before
   * it; by default Svix's (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h).
   */
  webhookRetrySchedule: z
    .array(
      z
        .int({ error: retryDelayError })
        .min(0, { error: retryDelayError })
        .max(86_400_000, { error: retryDelayError }),
    )
    .max(20)
    .default(() => [...svixRetrySchedule]),
  /** How long one webhook attempt may take before it counts as failed, in milliseconds. */
  webhookTimeoutMs: wholeNumber(1, 600_000).default(15_000),
  ...limitsShape,
})

export type MockApiOptions = z.input<typeof mockApiOptionsSchema>
export type ResolvedMockApiOptions = z.output<typeof mockApiOptionsSchema>

/**
 * `options` parsed by `schema`, with their defaults; a `TypeError` that says what is wrong
 * otherwise, naming `what` was refused (options, a fault, a webhook, an event).
 *
 * @example parseOptions(mockApiOptionsSchema, { delayMs: -1 }) // throws 'Invalid options: delayMs: …'
 */
export function parseOptions<T extends z.ZodType>(
  schema: T,
  options: z.input<T>,
  what = 'options',
): z.output<T> {
  const parsed = schema.safeParse(options)
  if (!parsed.success)
    throw new TypeError(`Invalid ${what}: ${describeIssues(parsed.error.issues)}`)
  return parsed.data
}

/** The mock's options with their defaults; a `TypeError` that says what is wrong otherwise. */
export function resolveOptions(options: MockApiOptions = {}): ResolvedMockApiOptions {
  return parseOptions(mockApiOptionsSchema, options)
}
