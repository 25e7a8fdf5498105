import * as z from 'zod'
import { remembered } from '../base/remembered.ts'

/** The longest delay a latency gives, in milliseconds: a draw past it is cut to it. */
const maxLatencyMs = 600_000

const milliseconds = z.int().min(0).max(maxLatencyMs)

/**
 * How long the mock waits before each answer: a fixed delay, one drawn uniformly between two
 * bounds, or one drawn from a log-normal distribution with the median and the 99th percentile
 * given (what real services' latencies look like). Drawn from the seed: the same seed,
 * organisation and sequence of calls give the same delays.
 *
 * @example latencySchema.parse({ medianMs: 80, p99Ms: 900 })
 */
export const latencySchema = z
  .union(
    [
      z.strictObject({ fixedMs: milliseconds }),
      z.strictObject({
        uniformMs: z
          .tuple([milliseconds, milliseconds])
          .refine(([low, high]) => low <= high, 'the lower bound first'),
      }),
      z
        .strictObject({ medianMs: milliseconds.min(1), p99Ms: milliseconds.min(1) })
        .refine(({ medianMs, p99Ms }) => p99Ms >= medianMs, {
          message: 'must not be below medianMs',
          path: ['p99Ms'],
        }),
    ],
    { error: 'expected {"fixedMs":n}, {"uniformMs":[a,b]} or {"medianMs":m,"p99Ms":p}' },
  )
  .describe(
    'a delay before every API answer, drawn from the seed: {"fixedMs":n}, {"uniformMs":[a,b]} or {"medianMs":m,"p99Ms":p} (log-normal); an organisation\'s own wins',
  )

export type Latency = z.output<typeof latencySchema>

/**
 * An organisation's own latency, as `PUT /__mock/organisations/{orgId}/latency` takes it: `null`
 * for the mock's.
 *
 * @example organisationLatencySchema.parse({ latency: { fixedMs: 50 } })
 */
export const organisationLatencySchema = z.strictObject({ latency: latencySchema.nullable() })

/**
 * The latency a JSON text holds (an organisation's record keeps it so), read once per text;
 * `null` when it holds none.
 *
 * @example latencyOfJson('{"fixedMs":50}') // { fixedMs: 50 }
 */
export const latencyOfJson = remembered((text): Latency | null => {
  try {
    return latencySchema.safeParse(JSON.parse(text)).data ?? null
  } catch {
    return null
  }
}, 1024)

/** The standard normal distribution's 99th percentile: how many sigmas p99 lies above the median. */
const z99 = 2.3263478740408408

/**
 * The delay `latency` gives, from two numbers drawn uniformly in [0, 1): whole milliseconds, at
 * most {@link maxLatencyMs}. Log-normal by Box–Muller, its `mu` the median's logarithm and its
 * `sigma` what puts the 99th percentile at `p99Ms`.
 *
 * @example delayOf({ uniformMs: [10, 20] }, 0.5, 0.1) // 15
 */
export function delayOf(latency: Latency, u1: number, u2: number): number {
  if ('fixedMs' in latency) return latency.fixedMs
  if ('uniformMs' in latency) {
    const [low, high] = latency.uniformMs
    return Math.round(low + u1 * (high - low))
  }
  const { medianMs, p99Ms } = latency
  const sigma = Math.log(p99Ms / medianMs) / z99
  const normal = Math.sqrt(-2 * Math.log(1 - u1)) * Math.cos(2 * Math.PI * u2)
  return Math.min(maxLatencyMs, Math.round(medianMs * Math.exp(sigma * normal)))
}
