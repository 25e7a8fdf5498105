/**
 * A minimal reproduction of the memory msw 3 keeps per intercepted `fetch` in Node, with no
 * identify-api-mock code involved: one trivial handler, `calls` requests, and the heap after
 * garbage collection, per call; then the same with the workaround of `lib/msw-socket-leak.ts`.
 *
 *   node bench/msw-leak.ts [calls]
 *
 * Each variant runs in a fresh process (`--expose-gc`). Found with msw 3.0.5 and
 * @mswjs/interceptors 0.45.12: about 50 KB a call without the workaround, under 1.5 KB with it.
 */
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { HttpResponse, http } from 'msw'
import { setupServer } from 'msw/node'
import { memoryAfterGc } from './lib/heap.ts'
import { closeHandlesOfClosedSockets } from './lib/msw-socket-leak.ts'

export interface LeakResult {
  calls: number
  workaround: boolean
  bytesPerCall: number
}

/** Runs both variants, each in a process of its own. */
export async function reproduceLeak(calls: number): Promise<LeakResult[]> {
  const results: LeakResult[] = []
  for (const variant of ['without', 'with']) {
    const { stdout } = await promisify(execFile)(process.execPath, [
      '--expose-gc',
      fileURLToPath(import.meta.url),
      String(calls),
      variant,
    ])
    results.push(JSON.parse(stdout) as LeakResult)
  }
  return results
}

async function child(calls: number, workaround: boolean) {
  if (workaround) closeHandlesOfClosedSockets()
  const server = setupServer(http.post('http://leak.test/echo', () => HttpResponse.json({ ok: 1 })))
  server.listen({ onUnhandledFrame: 'error' })
  const call = async () => {
    const response = await fetch('http://leak.test/echo', { method: 'POST', body: '{}' })
    await response.json()
  }
  for (let i = 0; i < 200; i++) await call()
  const before = (await memoryAfterGc()).heapUsed
  for (let i = 0; i < calls; i++) await call()
  const after = (await memoryAfterGc()).heapUsed
  server.close()
  const result: LeakResult = { calls, workaround, bytesPerCall: (after - before) / calls }
  process.stdout.write(`${JSON.stringify(result)}\n`)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const calls = Number(process.argv[2] ?? 5000)
  const variant = process.argv[3]
  if (variant) await child(calls, variant === 'with')
  else {
    for (const r of await reproduceLeak(calls)) {
      process.stdout.write(
        `${r.workaround ? 'with the workaround   ' : 'msw 3 as it is        '} ${Math.round(r.bytesPerCall).toLocaleString('en')} bytes kept per fetch (${r.calls.toLocaleString('en')} calls)\n`,
      )
    }
  }
}
