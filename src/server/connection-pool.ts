import type { Socket } from 'node:net'

/**
 * The server's open connections, at most `max`: a connection past it closes the one idle the
 * longest (waiting for its first request or between two, as nginx reuses its idle keep-alive
 * connections first), so that idle and slow clients cannot lock a new one out. Only when every
 * connection has a request under way is one more counted past `max` (and its request answered
 * 503 by the listener).
 *
 * @example
 * server.on('connection', (socket) => pool.opened(socket))
 * server.on('request', (req, res) => pool.busy(req.socket, res))
 */
export class ConnectionPool {
  readonly #max: number
  readonly #open = new Set<Socket>()
  /** The open connections with no request under way, idle the longest first. */
  readonly #idle = new Set<Socket>()
  readonly #underWay = new WeakMap<Socket, number>()

  constructor(max: number) {
    this.#max = max
  }

  /** How many connections are open. */
  get size(): number {
    return this.#open.size
  }

  /** Counts a new connection, idle until its first request; closes the idle longest past `max`. */
  opened(socket: Socket): void {
    if (this.#open.size >= this.#max) {
      const idlest = this.#idle.values().next().value
      if (idlest) this.#forget(idlest).destroy()
    }
    this.#open.add(socket)
    this.#idle.add(socket)
    socket.once('close', () => this.#forget(socket))
  }

  /** Notes a request under way on `socket`, until `response` closes. */
  busy(socket: Socket, response: { once(event: 'close', listener: () => void): unknown }): void {
    this.#underWay.set(socket, (this.#underWay.get(socket) ?? 0) + 1)
    this.#idle.delete(socket)
    response.once('close', () => {
      const left = (this.#underWay.get(socket) ?? 1) - 1
      this.#underWay.set(socket, left)
      // Idle from now: the last of the idle, behind every connection idle before it.
      if (left === 0 && this.#open.has(socket)) this.#idle.add(socket)
    })
  }

  #forget(socket: Socket): Socket {
    this.#open.delete(socket)
    this.#idle.delete(socket)
    return socket
  }
}
