import * as z from 'zod'
import { chaosOptionSchema } from '../api/chaos-setting.ts'
import { dataFileSchema } from '../api/data-file.ts'
import { defaultReadTimeoutMs, gatewayNameSchema, readTimeoutSchema } from '../api/gateway.ts'
import { latencySchema } from '../api/latency.ts'
import { shapesSchema } from '../api/shape-cases.ts'
import { parseOptions } from '../base/errors.ts'
import { headerSecretSchema } from '../base/secrets.ts'
import { defaultSourceShare } from '../base/shares.ts'
import type { Clock } from '../base/time.ts'
import { svixRetrySchedule, webhookLimits } from '../webhooks/limits.ts'
import { webhookEndpointInputSchema } from '../webhooks/webhook-schemas.ts'

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
  users: wholeNumber(0)
    .optional()
    .describe('fixture users to seed it with; usersPerOrganisation when omitted, 0 for none'),
})

/** An organisation a consumer adds to the seeded data, with its API keys in clear. */
export type OrganisationOptions = z.input<typeof organisationSchema>

/**
 * Why an option has no flag of `serve`, where it has none: a function, which no command line
 * can give. (`organisations` and `webhooks` are built from flags of their own.)
 */
const noFlag = { function: 'a function, which no command line can give' }

/**
 * The bounds of a running mock, so that no client can fill its memory: each an option of
 * `createMockApi` and `startServer`, and a flag of `serve`.
 */
const sourceShareError = 'expected a fraction above 0 and at most 1, e.g. 0.25'

const limitsShape = {
  maxUsers: wholeNumber(1)
    .default(200_000)
    .describe('users the mock holds at most; an identify that would create one more answers 500'),
  maxUserGroupsPerOrganisation: wholeNumber(1)
    .default(10_000)
    .describe(
      'user groups per organisation at most; an identify that would create more answers 400',
    ),
  maxTokensPerUser: wholeNumber(1)
    .default(10)
    .describe("sign-in tokens kept per user, redeemed or not; a new one drops the user's oldest"),
  sessionTtlSeconds: wholeNumber(1)
    .default(3600)
    .describe("how long a web-view session lasts, in seconds (the cookie's Max-Age)"),
  maxOrganisations: wholeNumber(1)
    .default(1000)
    .describe(
      'organisations at most, seeded, from data and created at run time together; one more is refused (400 on the control endpoint, a TypeError in-process)',
    ),
  maxSessionsPerUser: wholeNumber(1)
    .default(10)
    .describe("web-view sessions kept per user; a new one drops the user's oldest"),
  maxStateBytes: wholeNumber(1)
    .default(256 * 1024 * 1024)
    .describe(
      'everything stored, as the JSON size of the records (in characters); an operation that would pass it answers 500 and changes nothing',
    ),
  sourceShare: z
    .number({ error: sourceShareError })
    .gt(0, { error: sourceShareError })
    .max(1, { error: sourceShareError })
    .default(defaultSourceShare)
    .describe(
      "the share of each mock-wide bound one source (an organisation's API keys, the control token, or no credential) holds at most: the server's connections held and request bodies being read, the queued faults, the pending webhook deliveries; when the mock is full, the source holding the most past its share gives way",
    ),
}

const retryDelayError = 'expected whole numbers of milliseconds up to a day, e.g. 100,1000,5000'

/**
 * The options of `createMockApi` and of the standalone server; every one has a default. Each
 * option's description is its schema's (`.describe`): `serve --help`, the options guide and the
 * types' documentation are read from there.
 *
 * @example
 * createMockApi({ seed: 7, organisations: [{ orgId: 'acme', apiKeys: ['test-key'] }] })
 */
export const mockApiOptionsSchema = z.strictObject({
  seed: wholeNumber()
    .default(1)
    .describe('the fixture seed: the same seed always gives the same seeded data'),
  seededOrganisations: wholeNumber(0)
    .default(2)
    .describe('how many organisations the seed creates (org-1, org-2, …); 0 for none'),
  usersPerOrganisation: wholeNumber(0)
    .default(8)
    .describe('fixture users per seeded organisation, the added organisations included'),
  organisations: z
    .array(organisationSchema)
    .default([])
    .describe('organisations and API keys added to the seeded data')
    .meta({ noFlag: 'serve builds it from --org and --api-key' }),
  data: dataFileSchema
    .optional()
    .describe(
      'organisations and users in exact states (a data file), added to the seeded data: an organisation the seed has gets the keys, groups, paths and users added',
    )
    .meta({ noFlag: 'serve reads it from the file --data names' }),
  baseUrl: z
    .url()
    .optional()
    .describe(
      'pins the MSW handlers to one origin (and path prefix); by default they match any origin',
    )
    .meta({ noFlag: "the MSW handlers' own: a server answers on the address it is bound to" }),
  tokenTtlSeconds: z
    .number({ error: 'expected a number above 0' })
    .positive({ error: 'expected a number above 0' })
    .default(300)
    .describe('how long a sign-in token stays valid, in seconds'),
  now: z
    .custom<Clock>((value) => typeof value === 'function')
    .optional()
    .describe(
      "the real clock: what the mock's clocks read until a test sets one (api.setClock, PUT /__mock/clock), and what stays real whatever it sets (the journal's time, a webhook's svix-timestamp)",
    )
    .meta({ noFlag: noFlag.function }),
  generateToken: z
    .custom<() => string>((value) => typeof value === 'function')
    .optional()
    .describe(
      'makes sign-in tokens (for tests that need fixed tokens); by default 256 random bits, as hex',
    )
    .meta({ noFlag: noFlag.function }),
  strictUserGroups: z
    .boolean()
    .default(false)
    .describe('refuse (400) userGroups the organisation does not have, instead of creating them'),
  authFailureStatus: z
    .literal([401, 403])
    .default(401)
    .describe('the status for a missing, malformed or unknown API key: 401 or 403'),
  delayMs: wholeNumber(0).default(0).describe('a delay added to every API answer, in milliseconds'),
  latency: latencySchema.optional(),
  chaos: chaosOptionSchema
    .optional()
    .describe(
      "chaos at a rate: { rate, cases?, seed?, calls?, forMs? }, a share of the calls that meet a failure case drawn from a seeded stream; an organisation's own replaces it",
    ),
  gateway: gatewayNameSchema
    .default('none')
    .describe(
      "what stands in front of the API: none (the mock answers as the API's server), nginx or haproxy (each failure arrives as that gateway makes of it); an organisation's own wins",
    ),
  gatewayReadTimeoutMs: readTimeoutSchema.default(defaultReadTimeoutMs),
  gatewayBuffering: z
    .boolean()
    .default(true)
    .describe("nginx's proxy_buffering: the API's answer buffered whole before it is sent"),
  shapes: shapesSchema
    .default('full')
    .describe(
      "the forms of identify's answers: full (every field, as stored), varied (each user in a case of the covering set, fixed when it is created) or a case's name; an organisation's own setting wins",
    ),
  webViewMessages: z
    .strictObject({
      close: z
        .string()
        .min(1)
        .default('webview:close')
        .describe('the type of the message the web view posts on close'),
      sessionRefresh: z
        .string()
        .min(1)
        .default('webview:session-refresh')
        .describe('the type of the message the web view posts to ask the app for a new token'),
    })
    .prefault({})
    .describe('the types of the messages the emulated web view posts to the app'),
  journalSize: wholeNumber(1)
    .default(1000)
    .describe(
      'how many API calls the journal keeps (the newest) per organisation, and of the calls refused before authentication, kept apart in a small form',
    ),
  maxJournalBytes: wholeNumber(64 * 1024, 256 * 1024 * 1024)
    .default(16 * 1024 * 1024)
    .describe(
      "the bytes the journal's entries of every organisation hold together, measured as held (each request kept as its JSON text); past it, the organisation holding the most loses its oldest entry first",
    ),
  webhooks: z
    .array(webhookEndpointInputSchema)
    .max(webhookLimits.endpoints)
    .default([])
    .describe(
      'webhook endpoints ({ url, secret?, events? }) registered at start, which survive a reset; a secret is generated for each one without',
    )
    .meta({ noFlag: 'serve builds it from --webhook-url and --webhook-secret' }),
  webhookRetrySchedule: z
    .array(
      z
        .int({ error: retryDelayError })
        .min(0, { error: retryDelayError })
        .max(86_400_000, { error: retryDelayError }),
    )
    .max(20)
    .default(() => [...svixRetrySchedule])
    .describe(
      "the delays before each webhook retry, in milliseconds, each counted from the attempt before it (Svix's by default)",
    ),
  webhookTimeoutMs: wholeNumber(1, 600_000)
    .default(15_000)
    .describe('how long one webhook attempt may take before it counts as failed, in milliseconds'),
  ...limitsShape,
})

export type MockApiOptions = z.input<typeof mockApiOptionsSchema>
export type ResolvedMockApiOptions = z.output<typeof mockApiOptionsSchema>

/** The mock's options with their defaults; a `TypeError` that says what is wrong otherwise. */
export function resolveOptions(options: MockApiOptions = {}): ResolvedMockApiOptions {
  return parseOptions(mockApiOptionsSchema, options)
}
