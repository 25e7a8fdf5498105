import { connect, type Socket } from 'node:net'

/** A TCP connection to a server, for clients no HTTP library would be: slow, greedy, or rude. */
export interface RawConnection {
  socket: Socket
  /** Everything the server sent so far, as latin1. */
  received(): string
  /** Whether the server closed (or reset) the connection. */
  isClosed(): boolean
  /** Resolves when the server has closed the connection, however it did. */
  closed: Promise<void>
  /** Resolves when `pattern` matches what the server sent; rejects if it closes first. */
  waitFor(pattern: RegExp): Promise<RegExpMatchArray>
}

export function openConnection(url: string): Promise<RawConnection> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname)
    let data = ''
    let closed = false
    const waiters = new Set<() => void>()
    const notify = () => {
      for (const waiter of waiters) waiter()
    }
    socket.on('data', (chunk: Buffer) => {
      data += chunk.toString('latin1')
      notify()
    })
    // A reset after the server's answer is part of being cut off, not a failure of the test.
    socket.on('error', () => {})
    const closedPromise = new Promise<void>((done) =>
      socket.on('close', () => {
        closed = true
        notify()
        done()
      }),
    )
    socket.once('connect', () =>
      resolve({
        socket,
        received: () => data,
        isClosed: () => closed,
        closed: closedPromise,
        waitFor: (pattern) =>
          new Promise((found, lost) => {
            const check = () => {
              const match = data.match(pattern)
              if (match) {
                waiters.delete(check)
                found(match)
              } else if (closed) {
                waiters.delete(check)
                lost(new Error(`closed without ${pattern}; received: ${data.slice(0, 500)}`))
              }
            }
            waiters.add(check)
            check()
          }),
      }),
    )
    socket.once('error', reject)
  })
}

/** Writes `data` and waits until the kernel took it (or the connection is gone). */
export function writeAll(socket: Socket, data: string | Uint8Array): Promise<boolean> {
  return new Promise((resolve) => {
    if (socket.destroyed || !socket.writable) return resolve(false)
    socket.write(data, (error) => resolve(!error))
  })
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
