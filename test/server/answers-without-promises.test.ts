import { connect, type Socket } from 'node:net'
import { fileURLToPath } from 'node:url'
import { promiseHooks } from 'node:v8'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from '../../src/server/server.ts'

// The server's path makes a promise only where something waits (a body still on its way, a
// store's commit, `@msw/data`'s create of a new record): an identify of a known user whose body
// came with its headers is answered with none. Counted from the request's write to its answer's
// last byte: the promises made with a frame of the mock's source on their stack (the test runner
// makes its own meanwhile), the client a bare socket.
const source = fileURLToPath(new URL('../../src/', import.meta.url))

let server: RunningServer
let socket: Socket
let request: string
beforeAll(async () => {
  server = await startServer({ port: 0 })
  await server.core.ready
  const [first] = server.core.credentials
  const body = JSON.stringify({ id: 'u-promise', orgId: first?.orgId, data: { firstName: 'Ada' } })
  request = [
    'POST /api/v1/users/identify HTTP/1.1',
    `Host: ${new URL(server.url).host}`,
    `Authorization: Bearer ${first?.apiKeys[0]}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    '',
    body,
  ].join('\r\n')
  const { port, hostname } = new URL(server.url)
  socket = connect(Number(port), hostname)
  await new Promise((resolve) => socket.once('connect', resolve))
})
afterAll(async () => {
  socket.destroy()
  await server.close()
})

/** Sends the identify in one write: its answer's status, and the mock's promises until its end. */
function identify(): Promise<{ status: string; promises: number }> {
  return new Promise((resolve) => {
    let promises = 0
    let received = ''
    const stop = promiseHooks.onInit(() => {
      const limit = Error.stackTraceLimit
      Error.stackTraceLimit = 100
      if (new Error().stack?.includes(source)) promises++
      Error.stackTraceLimit = limit
    })
    const onData = (chunk: Buffer) => {
      received += chunk.toString('latin1')
      const headEnd = received.indexOf('\r\n\r\n')
      const length = Number(/\r\ncontent-length: (\d+)/i.exec(received)?.[1])
      if (headEnd === -1 || received.length < headEnd + 4 + length) return
      stop()
      socket.off('data', onData)
      resolve({ status: received.slice(9, 12), promises })
    }
    socket.on('data', onData)
    socket.write(request)
  })
}

describe('the server answering an identify whose body came with its headers', () => {
  it('makes no promise on the way for a known user', async () => {
    // The first creates the user, through `@msw/data`'s asynchronous create.
    expect(await identify()).toMatchObject({ status: '200' })
    const answers = []
    for (let i = 0; i < 10; i++) answers.push(await identify())
    expect(answers).toEqual(Array.from({ length: 10 }, () => ({ status: '200', promises: 0 })))
  })
})
