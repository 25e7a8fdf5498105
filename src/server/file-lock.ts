import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  ftruncateSync,
  openSync,
  readFileSync,
  unlinkSync,
} from 'node:fs'
import type { DatabaseSync } from 'node:sqlite'

/** Another process (or this one) holds the file, or this Node cannot lock it: the message says. */
export class FileLockedError extends Error {
  override name = 'FileLockedError'
}

/** The lock files this process holds: a second lock of one file in this process is refused too. */
const heldHere = new Set<string>()

/** SQLite's result codes met here: the file is locked; the file is not a database. */
const sqliteBusy = 5
const sqliteNotADatabase = 26

/**
 * An exclusive lock on a file between processes that the kernel enforces: `<file>.lock`, an empty
 * SQLite database that this process holds an exclusive transaction on, through `node:sqlite`.
 * SQLite locks with `fcntl`, so the lock holds across PID namespaces (two containers sharing a
 * volume) and the kernel releases it when its holder dies, however it dies: there is no pid to
 * guess from, and no stale lock to take over.
 *
 * @example
 * const lock = FileLock.acquire('./mock-state.jsonl')
 * try { … } finally { lock.release() }
 */
export class FileLock {
  readonly path: string
  readonly #database: DatabaseSync

  private constructor(path: string, database: DatabaseSync) {
    this.path = path
    this.#database = database
  }

  /** Locks `file`, or throws a {@link FileLockedError} at once that says why not. */
  static acquire(file: string, mode: number): FileLock {
    const path = `${file}.lock`
    if (heldHere.has(path)) throw new FileLockedError(`${file} is already open in this process`)
    const sqlite = loadSqlite()
    createPrivate(file, path, mode)
    let database: DatabaseSync | undefined
    try {
      database = lockDatabase(sqlite, path)
    } catch (error) {
      // The pid a version of this mock before the kernel lock left: no process can hold it.
      if (sqliteCode(error) === sqliteNotADatabase && truncateLeftPid(file, path)) {
        database = lockDatabase(sqlite, path)
      } else throw error
    }
    heldHere.add(path)
    return new FileLock(path, database)
  }

  /** Releases the lock (the kernel does it too when the process ends). The file stays. */
  release(): void {
    if (!heldHere.delete(this.path)) return
    this.#database.close()
  }
}

/** An exclusive transaction on the database at `path`, kept open; refused at once if held. */
function lockDatabase(sqlite: typeof import('node:sqlite'), path: string): DatabaseSync {
  const database = new sqlite.DatabaseSync(path, { timeout: 0 })
  try {
    database.exec('PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE')
    return database
  } catch (error) {
    database.close()
    if (sqliteCode(error) === sqliteBusy) {
      throw new FileLockedError(
        `${path.slice(0, -'.lock'.length)} is in use by another server (it holds ${path}): stop it, or choose another --state-file`,
      )
    }
    throw error
  }
}

/**
 * `node:sqlite`, loaded only for a state file. Node 22.13 and later have it; Node 22.12 only
 * behind `--experimental-sqlite`.
 */
function loadSqlite(): typeof import('node:sqlite') {
  const sqlite = process.getBuiltinModule('node:sqlite') as typeof import('node:sqlite') | undefined
  if (!sqlite) {
    throw new FileLockedError(
      `--state-file needs node:sqlite to lock the file, which Node ${process.version} lacks: use Node 22.13 or newer`,
    )
  }
  return sqlite
}

/**
 * Opens the lock file `path` of `file` without following a link (created if it does not exist),
 * refusing in one line anything but a regular file of this user: a link planted there must not make
 * the server create, change the mode of or empty another file. Non-blocking, so a FIFO is refused
 * rather than waited on.
 */
function openLockFile(file: string, path: string, flags: number, mode?: number): number {
  let fd: number
  try {
    fd = openSync(path, flags | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0), mode)
  } catch (error) {
    if (errorCode(error) === 'ELOOP') throw refusal(file, path, 'is a symbolic link')
    if (errorCode(error) === 'EISDIR') throw refusal(file, path, 'is not a regular file')
    throw error
  }
  const stats = fstatSync(fd)
  const why = !stats.isFile()
    ? 'is not a regular file'
    : process.getuid && stats.uid !== process.getuid()
      ? 'belongs to another user'
      : undefined
  if (why === undefined) return fd
  closeSync(fd)
  throw refusal(file, path, why)
}

function refusal(file: string, path: string, why: string): FileLockedError {
  return new FileLockedError(`cannot use ${file} as a state file: its lock ${path} ${why}`)
}

/** Creates the lock file `path` if it does not exist, and gives it `mode` either way. */
function createPrivate(file: string, path: string, mode: number): void {
  const fd = openLockFile(file, path, constants.O_RDONLY | constants.O_CREAT, mode)
  try {
    fchmodSync(fd, mode)
  } finally {
    closeSync(fd)
  }
}

/** Empties the lock file `path` if it holds only a pid (or nothing); whether it did. */
function truncateLeftPid(file: string, path: string): boolean {
  const fd = openLockFile(file, path, constants.O_RDWR)
  try {
    if (!/^\d*$/.test(readFileSync(fd, 'latin1'))) return false
    ftruncateSync(fd, 0)
    return true
  } finally {
    closeSync(fd)
  }
}

function sqliteCode(error: unknown): number | undefined {
  return (error as { errcode?: number }).errcode
}

export function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path)
  } catch {
    // Already gone.
  }
}

export function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException).code
}
