import type { Socket } from 'node:net'

/** What the pool knows of an open connection. */
interface Connection {
  /** Its requests being answered: received, and their answer not yet handed to Node. */
  underWay: number
  /** When it last fell idle, in the pool's own count: the smallest has been idle the longest. */
  idleSince: number
}

/**
 * The server's open connections, at most `max`: a connection past it closes the one idle the
 * longest (waiting for its first request or between two, its last answer sent, as nginx reuses its
 * idle keep-alive connections first), so that idle and slow clients cannot lock a new one out.
 * Only when every connection has a request under way is one more counted past `max` (and its
 * request answered 503 by the listener). A request costs two lookups; the search for the idle
 * longest is made only at the cap.
 *
 * @example
 * server.on('connection', (socket) => pool.opened(socket))
 * // in the request listener:
 * pool.busy(req.socket); …answer…; pool.done(req.socket)
 */
export class ConnectionPool {
  readonly #max: number
  readonly #open = new Map<Socket, Connection>()
  #count = 0

  constructor(max: number) {
    this.#max = max
  }

  /** How many connections are open. */
  get size(): number {
    return this.#open.size
  }

  /** Counts a new connection, idle until its first request; closes the idle longest past `max`. */
  opened(socket: Socket): void {
    if (this.#open.size >= this.#max) this.#idlest()?.destroy()
    this.#open.set(socket, { underWay: 0, idleSince: this.#count++ })
    socket.once('close', () => this.#open.delete(socket))
  }

  /** A request of `socket` is being answered. */
  busy(socket: Socket): void {
    const connection = this.#open.get(socket)
    if (connection) connection.underWay++
  }

  /** A request of `socket` is answered: its answer handed to Node, or given up. */
  done(socket: Socket): void {
    const connection = this.#open.get(socket)
    if (connection && --connection.underWay === 0) connection.idleSince = this.#count++
  }

  /**
   * The connection idle the longest, no longer counted: none under way, nothing of an answer
   * left to write (one still flushing is not idle yet).
   */
  #idlest(): Socket | undefined {
    let idlest: [Socket, Connection] | undefined
    for (const entry of this.#open) {
      const [socket, connection] = entry
      if (connection.underWay > 0 || socket.writableLength > 0) continue
      if (!idlest || connection.idleSince < idlest[1].idleSince) idlest = entry
    }
    if (idlest) this.#open.delete(idlest[0])
    return idlest?.[0]
  }
}
