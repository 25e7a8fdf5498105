import type { Socket } from 'node:net'
import { noSource, Shares, type Source } from '../base/shares.ts'

/** What the pool knows of an open connection. */
interface Connection {
  socket: Socket
  /** Its requests being answered: received, and their answer not yet written. */
  underWay: number
  /** When it last fell idle, in the pool's own count: the smallest has been idle the longest. */
  idleSince: number
  /**
   * Who holds it: none while it waits for its first request or its request's credentials, the
   * request's source once they passed; `undefined` while idle between two requests.
   */
  source: Source | undefined
  /** Makes it give way: its request answered 503 if it has not been answered, and closed. */
  giveWay: (() => void) | undefined
}

/**
 * The server's open connections, at most `max`, and what each source holds of them. A connection
 * is held from its first request until its answer has been written (a slow body, a delay, a
 * `hang` or `slow` failure included), by the source of its request (none until its credentials
 * passed, and none while it waits for its first request). A connection past `max` makes room:
 * first the source holding the most, when it holds more than its share (`share` of `max`), gives
 * way (its oldest connection closed, its request answered 503 when it has not been answered);
 * otherwise the connection idle the longest is closed (as nginx reuses its idle keep-alive
 * connections first). Only when every connection is held, each source within its share, is one
 * more counted past `max` (and its request answered 503 by the listener). A request costs a few
 * lookups; the search for the one to close is made only at the cap.
 *
 * @example
 * server.on('connection', (socket) => pool.opened(socket))
 * // in the request listener:
 * pool.busy(req.socket, giveWay); pool.charge(req.socket, source); …answer…; pool.done(req.socket)
 */
export class ConnectionPool {
  readonly #max: number
  readonly #open = new Map<Socket, Connection>()
  readonly #shares: Shares
  #count = 0

  constructor(max: number, share: number) {
    this.#max = max
    this.#shares = new Shares(max, share)
  }

  /** How many connections are open. */
  get size(): number {
    return this.#open.size
  }

  /** How many connections `source` holds. */
  heldBy(source: Source): number {
    return this.#shares.heldBy(source)
  }

  /** Counts a new connection, held by none until its request's credentials pass; makes room past `max`. */
  opened(socket: Socket): void {
    if (this.#open.size >= this.#max) this.#makeRoom()
    const connection: Connection = {
      socket,
      underWay: 0,
      idleSince: this.#count++,
      source: undefined,
      giveWay: undefined,
    }
    this.#open.set(socket, connection)
    this.#hold(connection, noSource)
    socket.once('close', () => this.#forget(connection))
  }

  /**
   * A request of `socket` is being answered, held by none until {@link charge} names its source;
   * `giveWay` answers it 503 and closes the connection, if it must make room.
   */
  busy(socket: Socket, giveWay?: () => void): void {
    const connection = this.#open.get(socket)
    if (!connection) return
    connection.underWay++
    connection.giveWay = giveWay
    if (connection.source === undefined) this.#hold(connection, noSource)
  }

  /** The request under way on `socket` is charged to `source` (its credentials passed). */
  charge(socket: Socket, source: Source): void {
    const connection = this.#open.get(socket)
    if (connection && connection.underWay > 0 && connection.source !== source) {
      this.#hold(connection, source)
    }
  }

  /** A request of `socket` is answered: its answer written, or given up. */
  done(socket: Socket): void {
    const connection = this.#open.get(socket)
    if (!connection || --connection.underWay > 0) return
    connection.idleSince = this.#count++
    connection.giveWay = undefined
    this.#hold(connection, undefined)
  }

  /** Moves `connection` to `source`'s holdings (`undefined`: nobody's, idle). */
  #hold(connection: Connection, source: Source | undefined): void {
    if (connection.source !== undefined) this.#shares.give(connection.source, 1)
    connection.source = source
    if (source !== undefined) this.#shares.add(source, 1)
  }

  #forget(connection: Connection): void {
    if (this.#open.get(connection.socket) !== connection) return
    this.#open.delete(connection.socket)
    this.#hold(connection, undefined)
  }

  /**
   * Closes one connection to make room for a new one: the oldest of the source holding the most
   * when it holds more than its share, else the one idle the longest. None when every connection
   * is held and every source within its share.
   */
  #makeRoom(): void {
    const over = this.#shares.overShare()
    const closed = (over !== undefined && this.#oldestOf(over)) || this.#idlest()
    if (!closed) return
    this.#forget(closed)
    if (closed.giveWay && closed.underWay > 0) closed.giveWay()
    else closed.socket.destroy()
  }

  /**
   * The oldest open connection `source` holds: the open ones are kept in the order they opened,
   * and searched only at the cap.
   */
  #oldestOf(source: Source): Connection | undefined {
    for (const connection of this.#open.values())
      if (connection.source === source) return connection
    return undefined
  }

  /**
   * The connection idle the longest: none under way, nothing of an answer left to write (one
   * still flushing is not idle yet).
   */
  #idlest(): Connection | undefined {
    let idlest: Connection | undefined
    for (const connection of this.#open.values()) {
      if (connection.underWay > 0 || connection.socket.writableLength > 0) continue
      if (!idlest || connection.idleSince < idlest.idleSince) idlest = connection
    }
    return idlest
  }
}
