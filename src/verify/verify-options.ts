import * as z from 'zod'
import { describeIssues } from '../base/issues.ts'
import { visibleAscii } from '../base/secrets.ts'

/**
 * What `verify` does when not told otherwise.
 *
 * @example verifyDefaults.timeoutMs // 10000
 */
export const verifyDefaults = {
  timeoutMs: 10_000,
  userIdPrefix: 'verify-',
} as const

/**
 * At most this many requests reach the target in one run, the clean-up included.
 *
 * @example planVerification(options).requests.length <= maxVerifyRequests // true
 */
export const maxVerifyRequests = 40

const timeoutError = 'expected a whole number of milliseconds above 0, up to 600000'

const fetchSchema = z.custom<typeof fetch>((value) => typeof value === 'function', {
  message: 'expected a fetch function',
})

/**
 * The options of `verifyDeployment` (and of `identify-api-mock verify`, which reads its defaults
 * here).
 *
 * @example
 * verifyOptionsSchema.parse({ baseUrl: 'https://staging.example.com', apiKey: 'k', orgId: 'acme' })
 */
export const verifyOptionsSchema = z.strictObject({
  baseUrl: z
    .url({ protocol: /^https?$/, message: 'expected an http or https URL' })
    .refine((url) => !/[?#]/.test(url), 'expected a URL without a query or a fragment')
    .refine(
      (url) => !URL.canParse(url) || new URL(url).username + new URL(url).password === '',
      'expected a URL without a user name or password (errors and --dry-run would print them)',
    )
    .describe(
      'the deployment to check, e.g. https://staging.example.com (the API paths go under it)',
    ),
  apiKey: z
    .string()
    .regex(visibleAscii, 'expected visible ASCII characters, at least one')
    .describe('an API key of the organisation; sent only as Authorization: Bearer, never printed'),
  orgId: z
    .string()
    .min(1)
    .describe('the organisation the key belongs to: the throwaway user is created there'),
  otherOrgId: z
    .string()
    .min(1)
    .optional()
    .describe('an organisation the key does not belong to; by default a random one'),
  groups: z
    .array(z.string().min(1))
    .max(10)
    .default([])
    .describe(
      'existing user groups of the organisation, to check userGroups; else only [] is sent',
    ),
  strict: z.boolean().default(false).describe('decision rows count as failures too'),
  timeoutMs: z
    .int({ error: timeoutError })
    .min(1, { error: timeoutError })
    .max(600_000, { error: timeoutError })
    .default(verifyDefaults.timeoutMs)
    .describe(
      'how long each request may take, in milliseconds; a late answer makes its rows differ',
    ),
  userIdPrefix: z
    .string()
    .min(1)
    .max(64)
    .default(verifyDefaults.userIdPrefix)
    .describe(
      "the start of the throwaway user's id (a random part follows), so it says what it is",
    ),
  fetch: fetchSchema
    .optional()
    .describe(
      'the fetch requests go through; by default the global one at the time of each request',
    )
    .meta({ noFlag: 'a function, which no command line can give' }),
  signal: z
    .custom<AbortSignal>((value) => value instanceof AbortSignal)
    .optional()
    .describe(
      'aborting it stops the run: the throwaway user is deleted, then it rejects (interrupted)',
    )
    .meta({ noFlag: 'the command aborts its run on Ctrl-C' }),
})

export type VerifyOptions = z.input<typeof verifyOptionsSchema>
export type ResolvedVerifyOptions = z.output<typeof verifyOptionsSchema>

/**
 * What `planVerification` takes: a run's options, with the key optional, since a plan sends
 * nothing (given, it is checked as a run would).
 *
 * @example verifyPlanOptionsSchema.parse({ baseUrl: 'https://staging.example.com', orgId: 'acme' })
 */
export const verifyPlanOptionsSchema = verifyOptionsSchema.partial({ apiKey: true })

export type VerifyPlanOptions = z.input<typeof verifyPlanOptionsSchema>

/** Why a run could not produce a report. */
export type VerifyErrorReason = 'invalid-options' | 'unreachable' | 'refused' | 'interrupted'

/**
 * A run that cannot produce a report: bad options, a target that does not answer, a key refused
 * on the first identify (401 or 403), or an interrupted run (its user deleted first). The CLI
 * exits 2 for all but `interrupted` (130).
 *
 * @example
 * try { await verifyDeployment(options) } catch (e) { if (e instanceof VerifyError) console.error(e.reason) }
 */
export class VerifyError extends Error {
  override name = 'VerifyError'
  readonly reason: VerifyErrorReason

  constructor(reason: VerifyErrorReason, message: string) {
    super(message)
    this.reason = reason
  }
}

/**
 * The options with their defaults, parsed by `schema` (a run's by default); a `VerifyError`
 * (`invalid-options`) naming what is wrong.
 */
export function resolveVerifyOptions<T extends z.ZodType = typeof verifyOptionsSchema>(
  options: z.input<T>,
  schema: T = verifyOptionsSchema as unknown as T,
): z.output<T> {
  const parsed = schema.safeParse(options)
  if (!parsed.success) {
    throw new VerifyError(
      'invalid-options',
      `invalid options: ${describeIssues(parsed.error.issues, '')}`,
    )
  }
  return parsed.data
}
