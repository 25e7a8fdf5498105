import { connect, type Socket } from 'node:net'

const mib = 1024 * 1024

/**
 * The review's slow-body flood: `connections` clients at once, each announcing a 1 MiB identify
 * with a valid key and sending all but 100 bytes of it, then waiting. Resolves once every client
 * has sent what it will send (or was cut off); `release` closes them all.
 */
export async function slowBodyFlood(
  url: string,
  apiKey: string,
  connections: number,
): Promise<{ cutOff: () => number; release: () => void }> {
  const { hostname, port } = new URL(url)
  const head =
    `POST /api/v1/users/identify HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${apiKey}\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${mib}\r\n\r\n`
  const body = Buffer.alloc(mib - 100, 0x20)
  const sockets: Socket[] = []
  let closed = 0
  await Promise.all(
    Array.from(
      { length: connections },
      () =>
        new Promise<void>((sent) => {
          const socket = connect(Number(port), hostname)
          sockets.push(socket)
          // A 503 closes the connection while the client still writes: that is the point.
          socket.on('error', () => sent())
          socket.on('close', () => {
            closed++
            sent()
          })
          socket.on('data', () => {})
          socket.once('connect', () => {
            socket.write(head)
            socket.write(body, () => sent())
          })
        }),
    ),
  )
  return {
    cutOff: () => closed,
    release: () => {
      for (const socket of sockets) socket.destroy()
    },
  }
}

/**
 * The review's journal flood: for each organisation, 1,000 identify calls refused 400 whose body is
 * 16 KiB of `[{},{},…]` (a parsed body costs about 22 times its text), and 500 deletes with a wrong
 * key and a 15 KB path naming it; then 500 more naming none. 16 requests at a time.
 */
export async function journalFlood(
  url: string,
  organisations: readonly { orgId: string; apiKey: string }[],
): Promise<void> {
  const body = `[${Array(5460).fill('{}').join(',')}]`
  const longPath = (orgId: string, i: number) => `/api/v1/users/${orgId}/${i}-${'p'.repeat(15_000)}`
  const inBatches = async (count: number, request: (i: number) => Promise<Response>) => {
    for (let i = 0; i < count; i += 16) {
      const batch = Array.from({ length: Math.min(16, count - i) }, (_, j) => request(i + j))
      await Promise.all(batch.map(async (answer) => (await answer).arrayBuffer()))
    }
  }
  for (const { orgId, apiKey } of organisations) {
    await inBatches(1000, () =>
      fetch(`${url}/api/v1/users/identify`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body,
      }),
    )
    await inBatches(500, (i) =>
      fetch(`${url}${longPath(orgId, i)}`, {
        method: 'DELETE',
        headers: { authorization: 'Bearer not-a-key' },
      }),
    )
  }
  await inBatches(500, (i) => fetch(`${url}${longPath('nobody', i)}`, { method: 'DELETE' }))
}
