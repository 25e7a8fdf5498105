/**
 * The standalone server as the benchmarks load it: `startServer` (the code the bin runs, without
 * its command line), in a process of its own, reporting its memory on request. Options come as
 * JSON in the first argument; the process answers IPC messages:
 * - `{ type: 'memory', collect }`: garbage-collects (needs `--expose-gc`) unless `collect` is
 *   false, then reports heap, RSS and the peak RSS of the process so far.
 */
import { startServer } from '../src/server/server.ts'
import { memoryAfterGc } from './lib/heap.ts'

const options = JSON.parse(process.argv[2] ?? '{}')
// The server closes a connection after `maxRequestsPerSocket` answers (1,000 by default) and
// autocannon then reconnects: both servers under test run without that limit (the bare one has
// none), so that what is measured is the answer, not reconnections.
const server = await startServer({ port: 0, maxRequestsPerSocket: 0, ...options })

process.on('message', async (message: { type: string; collect?: boolean }) => {
  if (message.type !== 'memory') return
  const peakRss = process.resourceUsage().maxRSS * 1024
  const memory = message.collect === false ? process.memoryUsage() : await memoryAfterGc()
  process.send?.({ type: 'memory', heapUsed: memory.heapUsed, rss: memory.rss, peakRss })
})
process.on('SIGTERM', () => {
  server.close().finally(() => process.exit(0))
})
process.send?.({ type: 'ready', url: server.url })
