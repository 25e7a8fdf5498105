import { Bench, type FnOptions } from 'tinybench'

/**
 * The median latency of `fn`, in milliseconds, measured by tinybench for `timeMs` after a warm-up.
 * Hooks (`beforeEach`, …) prepare each call outside the measured time.
 */
export async function medianLatencyMs(
  fn: () => unknown,
  hooks: FnOptions = {},
  timeMs = 400,
): Promise<number> {
  const bench = new Bench({ time: timeMs, warmupTime: 100, throws: true })
  bench.add('task', fn, hooks)
  await bench.run()
  const result = bench.tasks[0]?.result
  if (result?.state !== 'completed') throw new Error(`benchmark did not complete: ${result?.state}`)
  return result.latency.p50
}
