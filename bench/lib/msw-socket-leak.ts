import diagnostics from 'node:diagnostics_channel'
import type { Socket } from 'node:net'

/**
 * A workaround for a leak in msw 3's interception in Node (`@mswjs/interceptors` 0.45): every
 * intercepted connection's TCP handle is never closed (the mocked socket replaces `_destroy`
 * without closing `_handle`), and an open handle keeps its socket, its undici client and their
 * buffers alive: about 50 KB per `fetch`. The mocked response also ends the connection, so every
 * `fetch` opens a new one. This closes the handle of every client socket once it has closed;
 * a real socket has none left by then, so it is left alone. `bench/msw-leak.ts` reproduces it.
 *
 * @returns a function that removes the workaround
 */
export function closeHandlesOfClosedSockets(): () => void {
  const onSocket = (message: unknown) => {
    const socket = (message as { socket: Socket & { _handle?: { close(): void } | null } }).socket
    socket.once('close', () => {
      const handle = socket._handle
      if (!handle) return
      socket._handle = null
      handle.close()
    })
  }
  diagnostics.subscribe('net.client.socket', onSocket)
  return () => diagnostics.unsubscribe('net.client.socket', onSocket)
}
