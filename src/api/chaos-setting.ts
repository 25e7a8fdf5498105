import * as z from 'zod'

/** The longest a chaos runs when `forMs` bounds it: a day, in milliseconds. */
const maxChaosMs = 86_400_000

/**
 * Chaos at a rate, as the option `chaos` takes it: the share of calls that meet a failure case
 * drawn from a seeded stream, the cases it draws from (absent: every failure case of the call's
 * operation), the seed (absent: one is drawn, and shown), and when it ends (after `calls` draws or
 * `forMs` of real time). The cases are names here; the core's `chaosSettingSchema` (what
 * `PUT /__mock/chaos` takes) checks each against the failure cases, which the options cannot read.
 *
 * @example chaosOptionSchema.parse({ rate: 0.05, seed: 7, calls: 1000 })
 */
export const chaosOptionSchema = z.strictObject({
  rate: z
    .number({ error: 'expected a rate from 0 to 1' })
    .min(0, { error: 'expected a rate from 0 to 1' })
    .max(1, { error: 'expected a rate from 0 to 1' })
    .describe('the share of calls that meet a failure case, from 0 to 1'),
  cases: z
    .array(z.string().max(100))
    .min(1)
    .max(1000)
    .optional()
    .describe("the failure cases drawn from (default: every failure case of the call's operation)"),
  seed: z
    .int({ error: 'expected a whole number' })
    .optional()
    .describe('the seed of the stream the failures are drawn from (default: one drawn, and shown)'),
  calls: z
    .int({ error: 'expected a whole number of 1 or more' })
    .min(1, { error: 'expected a whole number of 1 or more' })
    .optional()
    .describe('the chaos ends after this many calls drawn'),
  forMs: z
    .int({ error: `expected a whole number from 1 to ${maxChaosMs}` })
    .min(1, { error: `expected a whole number from 1 to ${maxChaosMs}` })
    .max(maxChaosMs, { error: `expected a whole number from 1 to ${maxChaosMs}` })
    .optional()
    .describe('the chaos ends after this many milliseconds of real time'),
})

/**
 * A chaos as `GET /__mock/chaos` shows it: its setting, the seed filled in, the cases it draws
 * from, and how many calls it drew for and failed so far.
 *
 * @example chaosReadingSchema.parse({ rate: 0.05, cases: ['delete-reset'], seed: 7, drawn: 20, failed: 1 })
 */
export const chaosReadingSchema = z.strictObject({
  rate: z.number(),
  cases: z.array(z.string()).describe('the failure cases drawn from'),
  seed: z.int(),
  calls: z.int().optional(),
  forMs: z.int().optional(),
  drawn: z.int().min(0).describe('the calls it drew for so far'),
  failed: z.int().min(0).describe('the calls it failed so far'),
})

export type ChaosReading = z.output<typeof chaosReadingSchema>
