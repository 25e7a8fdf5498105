/**
 * Goal 5, in a test suite: `calls` identify calls through `setupServer` + `fetch`, then the heap
 * after garbage collection against where it started. Run in a process of its own, with
 * `--expose-gc`, by `bench/run.ts`; prints one JSON line.
 *
 * Tokens live 5 seconds, on a clock the benchmark moves: before each measure it jumps past every
 * token's expiry and one more call sweeps them, so what remains is the state the mock must keep.
 */
import { setupServer } from 'msw/node'
import { createMockApi } from '../src/root/create-mock-api.ts'
import { memoryAfterGc } from './lib/heap.ts'
import { benchKey, identifyBody, jsonHeaders } from './lib/http-load.ts'
import { closeHandlesOfClosedSockets } from './lib/msw-socket-leak.ts'

const calls = Number(process.argv[2] ?? 100_000)
const workaround = process.argv[3] !== 'no-workaround'
if (workaround) closeHandlesOfClosedSockets()

let offsetMs = 0
const api = createMockApi({
  seededOrganisations: 0,
  organisations: [{ orgId: 'X', apiKeys: [benchKey], users: 1000 }],
  tokenTtlSeconds: 5,
  now: () => new Date(Date.now() + offsetMs),
})
const server = setupServer(...api.handlers)
server.listen({ onUnhandledFrame: 'error' })
const ids = (await api.state()).users.map((u) => u.id)

async function identify(i: number) {
  const response = await fetch('http://api.bench.test/api/v1/users/identify', {
    method: 'POST',
    headers: jsonHeaders(benchKey),
    body: identifyBody('X', ids[i % ids.length] as string),
  })
  await response.json()
  if (response.status !== 200) throw new Error(`identify answered ${response.status}`)
}

async function settledHeap(): Promise<number> {
  offsetMs += 10_000
  await identify(0)
  return (await memoryAfterGc()).heapUsed
}

/**
 * `calls` identify calls, the event loop let through every 100 as a test runner does between
 * tests: msw's mocked exchange completes in promise jobs alone, and the connection it leaves is
 * closed on a later turn of the loop, which a loop of nothing but awaits would never reach.
 */
async function identifyMany(count: number) {
  for (let i = 0; i < count; i++) {
    await identify(i)
    if (i % 100 === 99) await new Promise((resolve) => setImmediate(resolve))
  }
}

await identifyMany(2000)
const heapStart = await settledHeap()
const started = performance.now()
await identifyMany(calls)
const seconds = (performance.now() - started) / 1000
const heapEnd = await settledHeap()
server.close()
process.stdout.write(`${JSON.stringify({ calls, workaround, seconds, heapStart, heapEnd })}\n`)
