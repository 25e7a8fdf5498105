import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads'

/**
 * One row write: the collection, the record's key, and its JSON (`null`: the row is deleted). A
 * group's writes travel flat, three strings a write, so that handing them to the thread copies
 * strings only.
 */
export type RowWrites = (string | null)[]

/** What the thread answers to a request it could not carry out: the error as SQLite or Node gave it. */
interface Failure {
  error: { message: string; errcode?: number; code?: string }
}

/**
 * The thread that holds the state file's SQLite connection. Plain JavaScript, run from this text
 * (`eval`): a module of its own would need a path that holds in the source, in `dist` and in the
 * bundled bin alike. It answers each message in the order it came: a `commit` by a message back
 * (the main thread goes on meanwhile); any other request on the reply port, waking the main
 * thread that waits for it. A request that throws is answered with its error.
 */
const threadSource = `
const { parentPort, workerData } = require('node:worker_threads')
const { DatabaseSync } = require('node:sqlite')
const { chmodSync } = require('node:fs')
const { signal, replies } = workerData
let db, put, remove, rows
const failure = (error) => ({
  error: { message: String(error && error.message || error), errcode: error && error.errcode, code: error && error.code },
})
const transaction = (write) => {
  db.exec('BEGIN')
  try {
    write()
    db.exec('COMMIT')
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK')
    throw error
  }
}
const writeRows = (writes) => {
  for (let i = 0; i < writes.length; i += 3) {
    if (writes[i + 2] === null) remove.run(writes[i], writes[i + 1])
    else put.run(writes[i], writes[i + 1], writes[i + 2])
  }
}
const requests = {
  open({ path, applicationId, mode }) {
    db = new DatabaseSync(path, { timeout: 0 })
    db.exec('PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; COMMIT')
    const id = db.prepare('PRAGMA application_id').get().application_id
    const tables = db.prepare('SELECT count(*) AS n FROM sqlite_schema').get().n
    if (id !== applicationId && tables !== 0) {
      db.close()
      db = undefined
      return { foreign: true }
    }
    chmodSync(path, mode)
    db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA application_id = ' + applicationId + ';'
      + ' CREATE TABLE IF NOT EXISTS records (collection TEXT NOT NULL, key TEXT NOT NULL, json TEXT NOT NULL, UNIQUE (collection, key))')
    put = db.prepare('INSERT INTO records (collection, key, json) VALUES (?, ?, ?) ON CONFLICT (collection, key) DO UPDATE SET json = excluded.json')
    remove = db.prepare('DELETE FROM records WHERE collection = ? AND key = ?')
    return { loaded: tables !== 0 }
  },
  read({ chars }) {
    rows ??= db.prepare('SELECT collection, key, json FROM records ORDER BY rowid').iterate()
    const batch = []
    let size = 0
    while (size < chars) {
      const next = rows.next()
      if (next.done) {
        rows = undefined
        return { batch, done: true }
      }
      batch.push(next.value.collection, next.value.key, next.value.json)
      size += next.value.json.length
    }
    return { batch, done: false }
  },
  replace({ writes }) {
    transaction(() => {
      db.exec('DELETE FROM records')
      writeRows(writes)
    })
  },
  close() {
    db?.close()
    db = undefined
    parentPort.close()
  },
}
parentPort.on('message', (message) => {
  if (message.request === 'commit') {
    let answer = { id: message.id }
    try {
      transaction(() => writeRows(message.writes))
    } catch (error) {
      answer = { id: message.id, ...failure(error) }
    }
    parentPort.postMessage(answer)
    return
  }
  let answer
  try {
    answer = { value: requests[message.request](message) }
  } catch (error) {
    answer = failure(error)
  }
  replies.postMessage(answer)
  Atomics.store(signal, 0, 1)
  Atomics.notify(signal, 0)
})
process.on('exit', () => {
  Atomics.store(signal, 0, 2)
  Atomics.notify(signal, 0)
})
`

/** A commit given to the thread and not yet answered. */
interface Waiting {
  resolve(): void
  reject(error: Error): void
}

/**
 * The state file's SQLite connection, held by a thread of its own: a commit's `fsync` takes
 * milliseconds, during which `node:sqlite` (synchronous) would hold the event loop, so the calls
 * that arrive meanwhile could not run. {@link commit} returns at once and settles once the thread
 * has committed; every other request waits for the thread's answer (a start, a reset). The thread
 * takes its messages in order: a request waits for the commits given before it.
 */
export class StateFileThread {
  readonly #worker: Worker
  readonly #signal = new Int32Array(new SharedArrayBuffer(4))
  readonly #replies: MessageChannel['port1']
  readonly #waiting = new Map<number, Waiting>()
  #nextId = 0
  /** Why the thread stopped, once it has: every request then fails with it. */
  #stopped: Error | undefined
  #closing = false

  /** Starts the thread; `onStop` hears of it if it stops other than by {@link close}. */
  constructor(onStop: (error: Error) => void) {
    const { port1, port2 } = new MessageChannel()
    this.#replies = port1
    this.#worker = new Worker(threadSource, {
      eval: true,
      // Plain JavaScript and built-ins only: none of the loaders the process was started with.
      execArgv: [],
      workerData: { signal: this.#signal, replies: port2 },
      transferList: [port2],
    })
    // Outstanding commits belong to requests, whose sockets keep the process alive.
    this.#worker.unref()
    this.#worker.on('message', ({ id, error }: { id: number } & Partial<Failure>) => {
      const waiting = this.#waiting.get(id)
      this.#waiting.delete(id)
      if (error) waiting?.reject(asError(error))
      else waiting?.resolve()
    })
    const stop = (error: Error) => {
      if (this.#stopped) return
      this.#stopped = error
      for (const waiting of this.#waiting.values()) waiting.reject(error)
      this.#waiting.clear()
      if (!this.#closing) onStop(error)
    }
    this.#worker.on('error', (error: Error) =>
      stop(new Error(`its thread failed: ${error.message}`)),
    )
    this.#worker.on('exit', (code) =>
      stop(new Error(this.#closing ? 'it is closed' : `its thread stopped (exit code ${code})`)),
    )
  }

  /** Commits `writes` as one transaction, all or none; settles once it is on disk. */
  commit(writes: RowWrites): Promise<void> {
    if (this.#stopped) return Promise.reject(this.#stopped)
    const id = this.#nextId++
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject })
      this.#worker.postMessage({ request: 'commit', id, writes })
    })
  }

  /**
   * Runs request `request` in the thread, after every commit given before it, and returns its
   * answer: the event loop waits meanwhile, as a start or a reset does.
   */
  request<T>(request: string, fields: object = {}): T {
    if (this.#stopped) throw this.#stopped
    if (request === 'close') this.#closing = true
    Atomics.store(this.#signal, 0, 0)
    this.#worker.postMessage({ request, ...fields })
    Atomics.wait(this.#signal, 0, 0)
    const answer = receiveMessageOnPort(this.#replies)?.message as
      | ({ value: T } & Partial<Failure>)
      | undefined
    if (answer === undefined) {
      this.#stopped ??= new Error('its thread stopped without answering')
      throw this.#stopped
    }
    if (answer.error) throw asError(answer.error)
    return answer.value
  }

  /** Closes the file once the commits given before are done, and ends the thread. */
  close(): void {
    if (this.#stopped) return
    try {
      this.request('close')
    } finally {
      this.#replies.close()
    }
  }
}

/** An error as the thread described it, with SQLite's `errcode` and Node's `code` when it had them. */
function asError({ message, errcode, code }: Failure['error']): Error {
  return Object.assign(new Error(message), { errcode, code })
}
