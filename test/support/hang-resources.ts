import { getEventListeners } from 'node:events'
import { connect } from 'node:net'
import { setupServer } from 'msw/node'
import { createMockApi } from '../../src/root/index.ts'
import { startServer } from '../../src/server/server.ts'

// Run as a process of its own by test/contract/hang-leaves-nothing-open.test.ts: it counts what
// keeps Node running (its timers and sockets) before, during and after a hang on each way in, with
// no test runner's timers among them, prints the counts as JSON, and ends, as a process with
// nothing left open does, by itself.

/** What keeps Node running, by kind. */
const counts = () => {
  const info = process.getActiveResourcesInfo()
  return {
    timers: info.filter((type) => type === 'Timeout').length,
    sockets: info.filter((type) => type === 'TCPSocketWrap').length,
  }
}
type Counts = ReturnType<typeof counts>

/** Waits until `check` holds, asking after each 5 ms wait has ended (its timer no longer counted). */
async function waitUntil(check: () => boolean): Promise<void> {
  for (let waited = 0; !check() && waited < 10_000; waited += 5) {
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

const same = (a: Counts) => (b: Counts) => a.timers === b.timers && a.sockets === b.sockets

/** One scenario's counts, and the abort listeners left on the caller's signal. */
interface Seen {
  scenario: string
  before: Counts
  during: Counts
  after: Counts
  listeners?: number
}

const seen: Seen[] = []

const server = await startServer({ port: 0, organisations: [{ orgId: 'acme', apiKeys: ['k'] }] })
const { hostname, port } = new URL(server.url)
for (const [scenario, delayMs, clientCloses] of [
  ['server: the client closes', 60_000, true],
  ['server: at its bound', 200, false],
] as const) {
  const before = counts()
  server.core.failNext('delete', { kind: 'hang', delayMs })
  const socket = connect(Number(port), hostname)
  socket.on('error', () => {})
  socket.write(
    'DELETE /api/v1/users/acme/ada HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer k\r\n\r\n',
  )
  await waitUntil(() => counts().timers > before.timers)
  const during = counts()
  if (clientCloses) socket.end()
  await new Promise((resolve) => socket.once('close', resolve))
  await waitUntil(() => same(before)(counts()))
  seen.push({ scenario, before, during, after: counts() })
}
await server.close()

const api = createMockApi({
  baseUrl: 'https://hang.example.test',
  organisations: [{ orgId: 'acme', apiKeys: ['k'] }],
})
const msw = setupServer(...api.handlers)
msw.listen()
for (const [way, send] of [
  ['api.fetch', api.fetch],
  ['the MSW handlers', fetch],
] as const) {
  for (const [end, delayMs] of [
    ['the signal aborts', 60_000],
    ['at its bound', 100],
  ] as const) {
    const before = counts()
    api.failNext('delete', { kind: 'hang', delayMs })
    const controller = new AbortController()
    const answer = send('https://hang.example.test/api/v1/users/acme/ada', {
      method: 'DELETE',
      headers: { authorization: 'Bearer k' },
      signal: controller.signal,
    }).then(
      () => 'answered',
      (error: Error) => error.name,
    )
    await waitUntil(() => counts().timers > before.timers)
    const during = counts()
    if (end === 'the signal aborts') controller.abort()
    const settled = await answer
    await waitUntil(() => same(before)(counts()))
    seen.push({
      scenario: `${way}: ${end} (${settled})`,
      before,
      during,
      after: counts(),
      listeners: getEventListeners(controller.signal, 'abort').length,
    })
  }
}
msw.close()
process.stdout.write(JSON.stringify(seen))
