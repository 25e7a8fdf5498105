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
