/**
 * `npm run bench:soak`: five minutes of identify at full speed over HTTP against the standalone
 * server with its default options (a token lives 300 s: none expires during the run, so only the
 * per-user bound keeps them few), reporting the throughput of each 30 s, the server's RSS at the
 * end and at its peak (goal: under 400 MB) and the live tokens. `-- --quick` runs 20 s.
 *
 * `soak(calls)` (the million calls of `npm run bench`, section 5) measures heap growth instead:
 * tokens living 5 seconds, each measure taken once the tokens issued before it have expired and
 * one more call has swept them.
 */
import { fileURLToPath } from 'node:url'
import { benchKey, identifyUpdates, load } from './lib/http-load.ts'
import { type Memory, type MockServer, send, startMockServer } from './lib/processes.ts'
import { mb } from './lib/report.ts'
import { sustainedIdentify } from './lib/sustained.ts'

export interface SoakResult {
  calls: number
  seconds: number
  okPerSecond: number
  failures: number
  start: Memory
  end: Memory
}

const tokenTtlSeconds = 5

export async function soak(calls: number): Promise<SoakResult> {
  const server = await startMockServer({
    seededOrganisations: 0,
    organisations: [{ orgId: 'X', apiKeys: [benchKey], users: 1000 }],
    tokenTtlSeconds,
  })
  try {
    const target = identifyUpdates(server.url, benchKey, 'X', 'soak-user')
    await load({ ...target, amount: 20_000 })
    const start = await settledMemory(server, target)
    const started = performance.now()
    const result = await load({ ...target, amount: calls })
    const seconds = (performance.now() - started) / 1000
    const end = await settledMemory(server, target)
    return {
      calls,
      seconds,
      okPerSecond: result.okPerSecond,
      failures: result.failures,
      start,
      end,
    }
  } finally {
    await server.stop()
  }
}

async function settledMemory(
  server: MockServer,
  target: ReturnType<typeof identifyUpdates>,
): Promise<Memory> {
  await new Promise((resolve) => setTimeout(resolve, tokenTtlSeconds * 1000 + 1000))
  const answer = await send(target)
  if (answer.status !== 200) throw new Error(`identify answered ${answer.status}`)
  return server.memory()
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const quick = process.argv.includes('--quick')
  const [seconds, windowSeconds] = quick ? [20, 5] : [300, 30]
  process.stdout.write(`Soak: identify at full speed for ${seconds} s, default options…\n`)
  const r = await sustainedIdentify(seconds, windowSeconds)
  const underGoal = r.end.peakRss < 400e6
  process.stdout.write(
    [
      `throughput   ${r.windows.map((w) => Math.round(w)).join(', ')} answers 200/s, by ${windowSeconds} s (${r.failures} failures)`,
      `rss          ${mb(r.end.rss)} at the end, ${mb(r.end.peakRss)} at its peak (goal: under 400 MB: ${underGoal ? 'met' : 'NOT met'})`,
      `heap         ${mb(r.end.heapUsed)} at the end`,
      `live tokens  ${r.liveTokens.toLocaleString('en')}`,
      '',
    ].join('\n'),
  )
}
