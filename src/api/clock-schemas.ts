import * as z from 'zod'

// The clocks a test controls: the wire of `/__mock/clock` and `/__mock/organisations/{orgId}/clock`,
// and the `clock` a data file's organisation and `POST /__mock/organisations` may start with.

/**
 * What a clock may read and how far one advance may move it: an instant from 2000-01-01 to before
 * 2100-01-01, an advance of at most 400 days. Within them every instant has four-digit years and
 * every sum of an instant and an advance is a `Date`.
 */
const clockBounds = {
  fromMs: Date.UTC(2000, 0, 1),
  toMs: Date.UTC(2100, 0, 1),
  maxAdvanceMs: 400 * 24 * 60 * 60 * 1000,
} as const

const outOfBounds = 'an instant from 2000-01-01T00:00:00Z to before 2100-01-01T00:00:00Z'

/**
 * Whether `ms` is an instant a clock may read.
 *
 * @example inClockBounds(Date.UTC(2100, 0, 1)) // false
 */
export function inClockBounds(ms: number): boolean {
  return ms >= clockBounds.fromMs && ms < clockBounds.toMs
}

/** An instant a clock may read: ISO 8601 with an offset (`Z` or `±hh:mm`), within the bounds. */
const instantSchema = z.iso
  .datetime({ offset: true })
  // Text that is no instant at all is told by the format alone.
  .refine((text) => Number.isNaN(Date.parse(text)) || inClockBounds(Date.parse(text)), outOfBounds)
  .describe(`ISO 8601 with an offset, ${outOfBounds}`)

const frozenAt = instantSchema.describe('the clock stands still at this instant')
const startAt = instantSchema.describe('the clock runs on from this instant, at the real pace')

/**
 * How a clock starts, as a data file's organisation and `POST /__mock/organisations` give it:
 * frozen at an instant, or running from one. Exactly one of the two.
 *
 * @example clockStartSchema.parse({ frozenAt: '2030-01-01T00:00:00Z' })
 */
export const clockStartSchema = z
  .strictObject({ frozenAt: frozenAt.optional(), startAt: startAt.optional() })
  .superRefine(exactlyOne(['frozenAt', 'startAt']))
  .describe('the clock it starts with: exactly one of frozenAt and startAt')

/**
 * What `PUT …/clock` takes: frozen at an instant, running from one, or the real clock again (for
 * an organisation: no clock of its own, so that it follows the mock's). Exactly one of the three.
 *
 * @example clockSettingSchema.parse({ real: true })
 */
export const clockSettingSchema = z
  .strictObject({
    frozenAt: frozenAt.optional(),
    startAt: startAt.optional(),
    real: z
      .literal(true)
      .optional()
      .describe("back to the real clock (an organisation's: it follows the mock's again)"),
  })
  .superRefine(exactlyOne(['frozenAt', 'startAt', 'real']))
  .describe('exactly one of frozenAt, startAt and real')

/** A clock set by a test (see {@link clockSettingSchema}). */
export type ClockSetting = z.output<typeof clockSettingSchema>

/**
 * What `POST …/clock/advance` takes: how many milliseconds to move the clock on, at most 400 days.
 *
 * @example clockAdvanceSchema.parse({ ms: 301_000 })
 */
export const clockAdvanceSchema = z.strictObject({
  ms: z
    .int({ error: 'expected a whole number of milliseconds' })
    .min(0, { error: 'expected a whole number of milliseconds, 0 or more' })
    .max(clockBounds.maxAdvanceMs, { error: 'at most 400 days (34560000000 ms) in one advance' })
    .describe('milliseconds to move the clock on, from 0 to 400 days'),
})

/** The modes of a clock: the real one, standing still, or running on from an instant. */
const clockModeSchema = z.enum(['real', 'frozen', 'running'])

export type ClockMode = z.output<typeof clockModeSchema>

/**
 * What every clock control answers: the clock's time and its mode.
 *
 * @example clockReadingSchema.parse({ now: '2030-01-01T00:00:00.000Z', mode: 'frozen' })
 */
export const clockReadingSchema = z.strictObject({
  now: z.string().describe("the clock's time, ISO 8601 to the millisecond"),
  mode: clockModeSchema,
})

export type ClockReading = z.output<typeof clockReadingSchema>

/** A check that exactly one of `keys` is given, named in the problem when it is not. */
function exactlyOne(keys: readonly string[]) {
  return (value: Record<string, unknown>, context: z.RefinementCtx) => {
    const given = keys.filter((key) => value[key] !== undefined)
    if (given.length === 1) return
    context.addIssue({
      code: 'custom',
      message: `give exactly one of ${keys.join(', ')}${given.length > 1 ? `, not ${given.join(' and ')}` : ''}`,
    })
  }
}
