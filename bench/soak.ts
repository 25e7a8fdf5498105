/**
 * `npm run bench:soak`: a million identify calls over HTTP against the standalone server (tokens
 * living 5 seconds, so that live tokens stay bounded), reporting the server's memory at the start
 * and at the end. `node bench/soak.ts [calls]` runs fewer.
 *
 * Each measure waits for the tokens issued before it to expire and sends one more call, which
 * sweeps them; then the server collects its garbage and reports heap and RSS.
 */
import { fileURLToPath } from 'node:url'
import { identifyUpdates, load } from './lib/http-load.ts'
import { type Memory, type MockServer, send, startMockServer } from './lib/processes.ts'
import { mb } from './lib/report.ts'

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
    organisations: [{ orgId: 'X', apiKeys: ['K'], users: 1000 }],
    tokenTtlSeconds,
  })
  try {
    const target = identifyUpdates(server.url, 'K', 'X', 'soak-user')
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
  const calls = Number(process.argv[2] ?? 1_000_000)
  process.stdout.write(`Soak: ${calls.toLocaleString('en')} identify calls over HTTP…\n`)
  const r = await soak(calls)
  process.stdout.write(
    [
      `calls        ${r.calls.toLocaleString('en')} in ${r.seconds.toFixed(1)} s (${Math.round(r.okPerSecond)} answers 200/s, ${r.failures} failures)`,
      `heap         ${mb(r.start.heapUsed)} at start, ${mb(r.end.heapUsed)} at end (${mb(r.end.heapUsed - r.start.heapUsed)})`,
      `rss          ${mb(r.start.rss)} at start, ${mb(r.end.rss)} at end`,
      '',
    ].join('\n'),
  )
}
