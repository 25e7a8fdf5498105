import { createHook } from 'node:async_hooks'
import { connect } from 'node:net'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { type RunningServer, startServer } from '../../src/server/server.ts'

// The promises the server makes for one identify of a known user whose body came with its head:
// each is a turn of the microtask queue and garbage, which cost the server more CPU than their
// instructions. An `async` function that only hands a promise on (a wrapper around the front door,
// the core's entry, the memory release) cost one to three each; 36 a call before they went. What
// is left: the listener's and the call's own `async` steps, the body read, the turn in the queue.
const ceiling = 21
const apiKey = 'sk_test_promises_0123456789abcdef'
let server: RunningServer

beforeAll(async () => {
  server = await startServer({
    port: 0,
    seededOrganisations: 0,
    organisations: [{ orgId: 'org-p', apiKeys: [apiKey], users: 0 }],
  })
})
afterAll(() => server.close())

/**
 * Sends `count` identify calls one after another on one keep-alive connection, from callbacks
 * alone (the client makes no promise while the count runs), and calls `done` with the statuses.
 */
function identifyCalls(count: number, done: (statuses: string[]) => void): void {
  const { hostname, port } = new URL(server.url)
  const body = JSON.stringify({ id: 'user-p', orgId: 'org-p' })
  const request = [
    'POST /api/v1/users/identify HTTP/1.1',
    `Host: ${hostname}:${port}`,
    `Authorization: Bearer ${apiKey}`,
    'Content-Type: application/json',
    `Content-Length: ${body.length}`,
    '',
    body,
  ].join('\r\n')
  const socket = connect(Number(port), hostname)
  const statuses: string[] = []
  let received = ''
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString('latin1')
    const head = received.indexOf('\r\n\r\n')
    const length = Number(/\r\ncontent-length: (\d+)/i.exec(received)?.[1])
    if (head < 0 || received.length < head + 4 + length) return
    statuses.push(received.slice(9, 12))
    received = received.slice(head + 4 + length)
    if (statuses.length < count) socket.write(request)
    else {
      socket.destroy()
      done(statuses)
    }
  })
  socket.once('connect', () => socket.write(request))
}

it(`an identify on the server makes at most ${ceiling} promises`, async () => {
  // The first calls create the user and warm the path; then the counted ones.
  await new Promise((resolve) => identifyCalls(20, resolve))
  const calls = 200
  let promises = 0
  const hook = createHook({
    init(_id, type) {
      if (type === 'PROMISE') promises++
    },
  })
  const statuses = await new Promise<string[]>((resolve) => {
    hook.enable()
    identifyCalls(calls, (seen) => {
      hook.disable()
      resolve(seen)
    })
  })
  expect(statuses).toEqual(Array(calls).fill('200'))
  // The test's own `await` makes one, in all.
  expect(Math.round(promises / calls)).toBeLessThanOrEqual(ceiling)
})
