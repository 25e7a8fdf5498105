import { getEventListeners } from 'node:events'
import { connect, type Socket } from 'node:net'
import { createMockApi } from '../../src/root/index.ts'
import { startServer } from '../../src/server/server.ts'

// Run as a process of its own by test/server/client-gone-ends-the-call.test.ts: 1,000 delayed
// 1 MiB calls whose clients leave, on the server and in process, and calls that meet a `hang` or
// a `slow` body after their client left. It counts what keeps Node running (its timers and
// sockets) before and after, the abort listeners left on the callers' signals, and the growth of
// the memory the process's objects hold, with no test runner's timers or buffers among them, and
// prints the counts as JSON.

const calls = 1000
/** Calls in flight at once on the server: their bodies within the share of one source (16 MiB). */
const batch = 15

/**
 * Calls in flight at once in process, where the caller's body is the mock's until its call ends:
 * few, so that what is measured is what the calls whose callers left keep.
 */
const inProcessBatch = 4
const mib = 1024 * 1024

/** What keeps Node running, by kind. */
const counts = () => {
  const info = process.getActiveResourcesInfo()
  return {
    timers: info.filter((type) => type === 'Timeout').length,
    sockets: info.filter((type) => type === 'TCPSocketWrap').length,
  }
}

/** Waits until `check` holds, asking after each 1 ms wait has ended (its timer no longer counted). */
async function waitUntil(check: () => boolean, ms = 10_000): Promise<boolean> {
  const until = performance.now() + ms
  while (performance.now() < until) {
    if (check()) return true
    await new Promise((resolve) => setTimeout(resolve, 1))
  }
  return check()
}

/** Spaces to pad a body to 1 MiB, one buffer for every call (the client holds no body of its own). */
const padding = Buffer.alloc(mib, ' ')

/** An identify of `ada` padded with spaces to 1 MiB (the largest body the API reads), one text for every call. */
const largeIdentify = (() => {
  const json = JSON.stringify({ orgId: 'acme', id: 'ada' })
  return json + padding.subarray(json.length).toString('latin1')
})()

interface Seen {
  scenario: string
  before: { timers: number; sockets: number }
  after: { timers: number; sockets: number }
  /** The most the memory held (see {@link held}) grew by while the calls were under way, in MiB. */
  heldGrowthMib?: number
  /** Abort listeners left on the callers' signals, all together. */
  listeners?: number
  /** The journal's entries of the calls: how many say their client left, and their statuses. */
  clientGone?: number
  statuses?: number[]
  /** Users the calls created: their effect stays. */
  created?: number
}

const seen: Seen[] = []

const same = (a: ReturnType<typeof counts>, b: ReturnType<typeof counts>) =>
  a.timers === b.timers && a.sockets === b.sockets

/** Resolves with 'still waiting' after `ms`, its timer unreferenced. */
const waited = (ms: number) =>
  new Promise<string>((resolve) => setTimeout(resolve, ms, 'still waiting').unref())

const { gc } = globalThis as { gc?: () => void }
if (gc === undefined) throw new Error('run with --expose-gc: the memory is counted once collected')

/**
 * The memory the process's objects hold once the garbage is collected: the heap and what its
 * objects hold outside it (buffers, external strings), where a body kept would be. Not the
 * resident memory: the allocator keeps much of what it frees (the bodies' copies, the sockets'
 * reads) and gives it back when it will, so the RSS swings by tens of MiB with nothing held
 * (measured: the allocator's heap between 15 and 94 MiB while this stayed flat), and a sample at a
 * high found a growth past the budget of bodies. Collected twice: V8 frees the outside memory of
 * buffers a collection found dead afterwards, on a thread of its own, and the next collection
 * waits for that (measured: after one collection, `external` read between 10 and 57 MiB; after
 * two, between 10 and 14).
 */
const held = () => {
  gc()
  gc()
  const { heapUsed, external } = process.memoryUsage()
  return heapUsed + external
}

/**
 * Whether the memory is sampled once the calls from `sent` to `sent + step` are delayed: each time
 * a 250th call is among them (each sample collects the garbage first, which is what costs).
 */
const sampled = (sent: number, step: number) =>
  Math.floor((sent + step) / 250) > Math.floor(sent / 250)

const organisations = [{ orgId: 'acme', apiKeys: ['sk_test_acme'] }]

// The server: 1,000 delayed 1 MiB identify calls whose clients close once the call is delayed.
{
  const server = await startServer({ port: 0, organisations, seededOrganisations: 0 })
  await server.core.organisations.setLatency('acme', { fixedMs: 600_000 })
  const { hostname, port } = new URL(server.url)
  const send = (id: string, large: boolean): Socket => {
    const socket = connect(Number(port), hostname)
    socket.on('error', () => {})
    const json = JSON.stringify({ orgId: 'acme', id })
    const length = large ? mib : json.length
    socket.write(
      `POST /api/v1/users/identify HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer sk_test_acme\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n${json}`,
    )
    if (large) socket.write(padding.subarray(json.length))
    return socket
  }
  /**
   * `ids.length` calls, `batch` at a time, each batch's clients gone once its calls are delayed;
   * the most the memory held meanwhile.
   */
  const leaveWhileDelayed = async (ids: string[], large: boolean): Promise<number> => {
    let peak = 0
    for (let sent = 0; sent < ids.length; sent += batch) {
      const timers = counts().timers
      const sockets = ids.slice(sent, sent + batch).map((id) => send(id, large))
      // Each call waits out its delay on one timer: all of them are delayed now.
      await waitUntil(() => counts().timers >= timers + sockets.length)
      if (sampled(sent, batch)) peak = Math.max(peak, held())
      for (const socket of sockets) socket.destroy()
      // Their delays stop: the next batch is counted from where this one started.
      await waitUntil(() => counts().timers <= timers, 1000)
    }
    return peak
  }
  // Once, so that what the first calls load and compile is not counted as growth.
  await leaveWhileDelayed(
    Array.from({ length: 5 * batch }, (_, i) => `warm-${i}`),
    true,
  )
  for (const [scenario, arm, total, large] of [
    ['server: 1,000 delayed 1 MiB calls', () => {}, calls, true],
    [
      'server: a hang met after the client left',
      () => server.core.failNext('identify', { kind: 'hang', delayMs: 600_000, count: 100 }),
      100,
      false,
    ],
    [
      'server: a slow body met after the client left',
      () => server.core.failNext('identify', { kind: 'slow', delayMs: 600_000, count: 100 }),
      100,
      false,
    ],
  ] as const) {
    arm()
    const before = counts()
    const start = large ? held() : 0
    const ids = Array.from({ length: total }, (_, i) => `${scenario.length}-${i}`)
    const peak = Math.max(start, await leaveWhileDelayed(ids, large))
    await waitUntil(() => same(before, counts()))
    const entries = server.core.requests({ orgId: 'acme' }).slice(-total)
    const created = await server.core.transact(
      (ctx) => ids.filter((id) => ctx.db.users.get('acme', id) !== undefined).length,
    )
    seen.push({
      scenario,
      before,
      after: counts(),
      ...(large && { heldGrowthMib: (peak - start) / mib }),
      clientGone: entries.filter((entry) => entry.clientGone === true).length,
      statuses: [...new Set(entries.map((entry) => entry.status))],
      created,
    })
  }
  await server.close()
}

// In process: `api.fetch` calls whose signals abort while they are delayed, and slow bodies no
// one reads.
{
  const api = createMockApi({
    baseUrl: 'https://gone.example.test',
    organisations,
    seededOrganisations: 0,
  })
  await api.organisations.setLatency('acme', { fixedMs: 600_000 })
  const identify = (id: string, large: boolean, signal: AbortSignal) =>
    api
      .fetch('https://gone.example.test/api/v1/users/identify', {
        method: 'POST',
        headers: { authorization: 'Bearer sk_test_acme', 'content-type': 'application/json' },
        body: large ? largeIdentify : JSON.stringify({ orgId: 'acme', id }),
        signal,
      })
      .then(
        () => 'answered',
        (error: Error) => error.name,
      )
  /**
   * `total` calls, `batch` at a time, each batch's signals aborted once its calls are delayed:
   * the most the memory held meanwhile, the listeners left on the signals, how the calls ended.
   */
  const abortWhileDelayed = async (total: number, large: boolean) => {
    let peak = 0
    let listeners = 0
    const settled = new Set<string>()
    for (let sent = 0; sent < total; sent += inProcessBatch) {
      const timers = counts().timers
      const calls = Array.from({ length: Math.min(inProcessBatch, total - sent) }, (_, i) => {
        const controller = new AbortController()
        return { controller, answer: identify(`in-${sent + i}`, large, controller.signal) }
      })
      await waitUntil(() => counts().timers >= timers + calls.length)
      if (sampled(sent, inProcessBatch)) peak = Math.max(peak, held())
      for (const { controller } of calls) controller.abort()
      for (const { controller, answer } of calls) {
        settled.add(await Promise.race([answer, waited(2000)]))
        listeners += getEventListeners(controller.signal, 'abort').length
      }
      await waitUntil(() => counts().timers <= timers, 1000)
    }
    return { peak, listeners, settled }
  }
  await abortWhileDelayed(20 * inProcessBatch, true)
  for (const [scenario, arm, total, large] of [
    ['api.fetch: 1,000 delayed 1 MiB calls', () => {}, calls, true],
    [
      'api.fetch: a hang met after the signal aborted',
      () => api.failNext('identify', { kind: 'hang', delayMs: 600_000, count: 100 }),
      100,
      false,
    ],
  ] as const) {
    arm()
    const before = counts()
    const start = large ? held() : 0
    const { peak: most, listeners, settled } = await abortWhileDelayed(total, large)
    const peak = Math.max(start, most)
    await waitUntil(() => same(before, counts()))
    const entries = api.requests({ orgId: 'acme' }).slice(-total)
    seen.push({
      scenario: `${scenario} (${[...settled].join(', ')})`,
      before,
      after: counts(),
      ...(large && { heldGrowthMib: (peak - start) / mib }),
      listeners,
      clientGone: entries.filter((entry) => entry.clientGone === true).length,
      statuses: [...new Set(entries.map((entry) => entry.status))],
    })
  }
  await api.organisations.setLatency('acme', null)

  // Slow bodies no one reads, their caller's one signal never aborted.
  const before = counts()
  const shared = new AbortController()
  api.failNext('identify', { kind: 'slow', delayMs: 600_000, count: calls })
  for (let i = 0; i < calls; i++) {
    const response = await api.fetch('https://gone.example.test/api/v1/users/identify', {
      method: 'POST',
      headers: { authorization: 'Bearer sk_test_acme', 'content-type': 'application/json' },
      body: JSON.stringify({ orgId: 'acme', id: `slow-${i}` }),
      signal: shared.signal,
    })
    if (response.status !== 200) throw new Error(`a slow body answered ${response.status}`)
  }
  seen.push({
    scenario: 'api.fetch: 1,000 slow bodies no one reads',
    before,
    after: counts(),
    listeners: getEventListeners(shared.signal, 'abort').length,
  })
}

process.stdout.write(JSON.stringify(seen))
