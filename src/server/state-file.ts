import { chmodSync, closeSync, openSync, statSync } from 'node:fs'
import type { DatabaseSync, StatementSync } from 'node:sqlite'
import { withFastAccept } from '../api/fast-accept.ts'
import { profileOrNull } from '../api/profile-fields.ts'
import { describeIssues } from '../base/issues.ts'
import { type CollectionName, collectionNames, collectionTable } from '../model/collections.ts'
import { checked, type MockState, type PendingChanges } from '../model/database.ts'
import { fileErrorInWords } from './files/file-errors.ts'

/** A state file that cannot be used: it is left as it is, and the message says why in one line. */
export class StateFileError extends Error {
  override name = 'StateFileError'
}

/**
 * A commit that failed in a way that may have left it in the file (its sync failed, so its frames
 * may be whole in the write-ahead log), and that could not be put right: whether it was written is
 * known only when the file is read again, at the next start. The file takes no more writes
 * ({@link StateFileStopped}). `message` says why the commit failed; `cause`, why the repair did.
 */
export class StateFileInDoubt extends Error {
  override name = 'StateFileInDoubt'
}

/** A write refused because an earlier commit left the file in doubt ({@link StateFileInDoubt}). */
export class StateFileStopped extends Error {
  override name = 'StateFileStopped'
}

/** What marks a SQLite database as this mock's (`PRAGMA application_id`): "IAMK". */
const applicationId = 0x49414d4b
/**
 * What marks a state as complete (`PRAGMA user_version`), set in the very transaction that writes a
 * whole state (the first start's seed, a reset): a first start interrupted before it left 0.
 */
const completeState = 1
/** The file holds hashes of secrets and users' data: readable and writable by its owner only. */
const privateMode = 0o600
/**
 * Each collection's schema, asked first by a check derived from it (see `withFastAccept`): a row's
 * record is fresh from `JSON.parse`, so one the check accepts is used as it is.
 */
const rowSchemas = Object.fromEntries(
  collectionNames.map((name) => [name, withFastAccept(collectionTable[name].schema)]),
) as { [C in CollectionName]: (typeof collectionTable)[C]['schema'] }

/** The paths this process has open: SQLite's locks do not keep a process from itself. */
const openHere = new Set<string>()

/**
 * The durable state of a long-running server: a SQLite database (`node:sqlite`) with one row per
 * record, `(collection, key, json)`, for every collection of the collection table. Each operation's
 * changes are one transaction, committed (write-ahead log, `synchronous = FULL`) before it is
 * answered. The connection holds the database in exclusive locking mode: SQLite locks with
 * `fcntl`, so the kernel keeps a second server out, across PID namespaces too, and releases the
 * lock when its holder dies.
 */
export class StateFile {
  readonly path: string
  readonly #db: DatabaseSync
  readonly #put: StatementSync
  readonly #delete: StatementSync
  /** Whether the file held a complete state when opened (rather than being created empty). */
  readonly loaded: boolean
  /** A failed commit left the file in doubt: it takes no more writes (see {@link #putRight}). */
  #inDoubt = false
  /**
   * Whether the file was left by a first start that did not finish writing its state (stopped or
   * killed while it wrote the seed): it holds the tables and no complete state, and is started
   * afresh, as a new file is.
   */
  readonly interrupted: boolean
  /**
   * Whether its index was found not to match its records, and rebuilt from them before anything
   * was read or written (see {@link checkOrRepair}).
   */
  readonly repaired: boolean

  private constructor(
    path: string,
    db: DatabaseSync,
    held: { loaded: boolean; interrupted: boolean; repaired: boolean },
  ) {
    this.path = path
    this.#db = db
    this.loaded = held.loaded
    this.interrupted = held.interrupted
    this.repaired = held.repaired
    this.#put = db.prepare(
      'INSERT INTO records (collection, key, json) VALUES (?, ?, ?) ON CONFLICT (collection, key) DO UPDATE SET json = excluded.json',
    )
    this.#delete = db.prepare('DELETE FROM records WHERE collection = ? AND key = ?')
  }

  /** Opens (or creates) the state file at `path`; a {@link StateFileError} if it cannot be used. */
  static open(path: string): StateFile {
    const sqlite = loadSqlite()
    if (openHere.has(path)) throw new StateFileError(`${path} is already open in this process`)
    let db: DatabaseSync | undefined
    try {
      // Nothing but a regular file is opened: a pipe would block the open, and a device (such as
      // /dev/null) would read as an empty database and have its mode set below.
      if (statSync(path, { throwIfNoEntry: false })?.isFile() === false) {
        throw new StateFileError(`${path} is not a file`)
      }
      // Created here, so that it is private from its first byte; an existing one is made so below.
      closeSync(openSync(path, 'a', privateMode))
      db = new sqlite.DatabaseSync(path, { timeout: 0 })
      // Exclusive locking mode holds the lock from the first transaction to the close.
      db.exec('PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; COMMIT')
      const id = db.prepare('PRAGMA application_id').get()?.application_id
      const tables = db.prepare('SELECT count(*) AS n FROM sqlite_schema').get()?.n
      if (id !== applicationId && tables !== 0) {
        throw new StateFileError(
          `${path} is a SQLite database, but not a state file of identify-api-mock: start with a new file (another --state-file path); it was left as it is`,
        )
      }
      const repaired = tables !== 0 && checkOrRepair(path, db)
      chmodSync(path, privateMode)
      db.exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;
        PRAGMA application_id = ${applicationId};
        CREATE TABLE IF NOT EXISTS records (
          collection TEXT NOT NULL, key TEXT NOT NULL, json TEXT NOT NULL,
          UNIQUE (collection, key))`)
      // A file written before the mark existed is complete when it holds records: its seed was
      // written in one transaction, after the table.
      const complete =
        tables !== 0 &&
        (db.prepare('PRAGMA user_version').get()?.user_version === completeState ||
          db.prepare('SELECT EXISTS (SELECT 1 FROM records) AS held').get()?.held === 1)
      const file = new StateFile(path, db, {
        loaded: complete,
        interrupted: tables !== 0 && !complete,
        repaired,
      })
      openHere.add(path)
      return file
    } catch (error) {
      db?.close()
      throw asStateFileError(path, error)
    }
  }

  /**
   * Every record the file holds, read row by row (never as one string), each checked against its
   * collection's schema and key: a state marked {@link checked}.
   */
  read(): MockState {
    const refuse = (why: string): never => {
      throw new StateFileError(
        `${this.path} is not a usable state file (${why}); it was left as it is`,
      )
    }
    const state = Object.fromEntries(collectionNames.map((name) => [name, []])) as unknown as {
      [C in CollectionName]: object[]
    }
    const rows = this.#db.prepare('SELECT collection, key, json FROM records ORDER BY rowid')
    // Each row as an array where node:sqlite can (Node 22.16 and later): no object a row to build
    // and walk (the gain is measured in bench/README.md).
    const asArrays = typeof rows.setReturnArrays === 'function'
    if (asArrays) rows.setReturnArrays(true)
    for (const values of rows.iterate()) {
      const [collection, key, json] = (asArrays ? values : Object.values(values)) as [
        string,
        string,
        string,
      ]
      if (!Object.hasOwn(collectionTable, collection)) {
        return refuse(`it has an unknown collection "${collection}"`)
      }
      const name = collection as CollectionName
      let record: unknown
      try {
        record = JSON.parse(json)
      } catch {
        return refuse(`a record of "${name}" is not JSON`)
      }
      if (name === 'users') addMissingProfileFields(record)
      const parsed = rowSchemas[name].safeParse(record)
      if (!parsed.success) {
        return refuse(
          `a record of "${name}" does not fit its schema: ${describeIssues(parsed.error.issues.slice(0, 1))}`,
        )
      }
      if (keyOf(name, parsed.data) !== key)
        return refuse(`a record of "${name}" does not match its key`)
      state[name].push(parsed.data)
    }
    const users = state.users as MockState['users']
    if (new Set(users.map((u) => orgKey(u.orgId, u.id))).size !== users.length) {
      return refuse('two users of one organisation have the same id')
    }
    // Each record is its schema's output: the load stores it without a second check.
    return checked(state as MockState)
  }

  /** Writes one operation's changes as one transaction, committed to disk, or none of them. */
  commit(writes: PendingChanges['writes']): void {
    this.commitGroup([writes])
  }

  /**
   * Writes the changes of several operations, in the order they ran, as one transaction committed
   * to disk (one sync for them all), or none of them: group commit, for operations that ran one
   * after the other while the disk was busy and have not been answered yet. A record that several
   * of them wrote ends as the last one left it.
   */
  commitGroup(operations: readonly PendingChanges['writes'][]): void {
    this.#transaction(() => {
      for (const writes of operations) {
        for (const { collection, record, json } of writes) {
          const key = keyOf(collection, record)
          if (json === null) this.#delete.run(collection, key)
          else this.#put.run(collection, key, json)
        }
      }
    })
  }

  /**
   * Replaces every record with those of `state`, as one transaction, which also marks the state
   * complete: a start killed while it writes its first state leaves none.
   */
  replace(state: MockState): void {
    this.#transaction(() => {
      this.#db.exec(`DELETE FROM records; PRAGMA user_version = ${completeState}`)
      for (const name of collectionNames) {
        for (const record of state[name])
          this.#put.run(name, keyOf(name, record), JSON.stringify(record))
      }
    })
  }

  close(): void {
    if (!openHere.delete(this.path)) return
    this.#db.close()
  }

  #transaction(write: () => void): void {
    if (this.#inDoubt) {
      throw new StateFileStopped('a commit failed earlier and could not be put right')
    }
    this.#db.exec('BEGIN')
    try {
      write()
      this.#db.exec('COMMIT')
    } catch (error) {
      if (this.#db.isTransaction) this.#db.exec('ROLLBACK')
      if (isIoError(error)) this.#putRight(error)
      throw error
    }
  }

  /**
   * After a commit that failed on an I/O error. SQLite has taken it back in its own view, but when
   * its sync failed its frames may be whole in the write-ahead log, and the next start (after a
   * crash or a `kill -9`, which leaves no clean close) would replay them: calls answered "changes
   * nothing" would come back. A commit of a mark that changes nothing (the header's
   * `user_version`, set to what it is) writes its frame where theirs began, so no start replays
   * them; once it is synced, the file is exactly what was committed before. When that fails too,
   * the file is in doubt: throws a {@link StateFileInDoubt}, and takes no more writes.
   */
  #putRight(failure: unknown): void {
    try {
      const version = Number(this.#db.prepare('PRAGMA user_version').get()?.user_version)
      this.#db.exec(`PRAGMA user_version = ${version}`)
    } catch (error) {
      this.#inDoubt = true
      throw new StateFileInDoubt((failure as Error).message, { cause: error })
    }
  }
}

/**
 * Whether `error` is one of SQLite's I/O errors (`SQLITE_IOERR` and its extended codes: a failed
 * write, read or sync), rather than a full disk (`SQLITE_FULL`, which SQLite meets before the
 * commit's last frame is written) or an error of the statement.
 */
function isIoError(error: unknown): boolean {
  const { errcode } = error as { errcode?: unknown }
  return typeof errcode === 'number' && (errcode & 0xff) === sqliteIoErr
}

/**
 * Checks the database with SQLite's full check (`PRAGMA integrity_check`: its pages, and every
 * index entry against its table row, which `quick_check` does not compare: a damaged entry of the
 * key index let the server start, write a second row for a key and delete only that one, so that
 * an acknowledged delete came back at the next start). When the only problems are index entries,
 * rebuilds the index from the rows (`REINDEX`), checks again, and says it did (`true`); any other
 * problem, or one the rebuild does not cure (two rows of one key), is refused with the first one,
 * the file left as it is (the rebuild is tried only when the rows themselves are sound).
 */
function checkOrRepair(path: string, db: DatabaseSync): boolean {
  let problems = integrityProblems(db)
  if (problems.length === 0) return false
  let repaired = false
  if (problems.every((problem) => indexProblem.test(problem))) {
    try {
      db.exec('REINDEX records')
      problems = integrityProblems(db)
      repaired = problems.length === 0
    } catch (error) {
      problems = [(error as Error).message]
    }
  }
  if (repaired) return true
  throw new StateFileError(
    `${path} is damaged (SQLite's check found: ${problems[0]}): it was left as it is; restore it from a copy, or start with a new --state-file`,
  )
}

/** The problems SQLite's own index entries' wording names: an entry missing, extra or repeated. */
const indexProblem =
  /^(?:row \d+ missing from index|wrong # of entries in index|non-unique entry in index) /

/** Every problem `PRAGMA integrity_check` finds (at most 100), one a line; none when it says `ok`. */
function integrityProblems(db: DatabaseSync): string[] {
  try {
    const lines = db
      .prepare('PRAGMA integrity_check(100)')
      .all()
      .flatMap((row) => String(row.integrity_check ?? '').split('\n'))
      .map((line) => line.replace(/^\*\*\* in database main \*\*\*$/, '').trim())
      .filter((line) => line !== '')
    return lines.length === 1 && lines[0] === 'ok' ? [] : lines
  } catch (error) {
    return [(error as Error).message]
  }
}

/** The natural key of `record` in collection `name`, as the collection table declares it. */
function keyOf(name: CollectionName, record: object): string {
  const [first, second] = collectionTable[name].key.map(
    (field) => (record as Record<string, unknown>)[field],
  )
  return second === undefined ? String(first) : orgKey(String(first), String(second))
}

/** `error`, as the {@link StateFileError} of a file at `path` that cannot be used, in one line. */
function asStateFileError(path: string, error: unknown): StateFileError {
  if (error instanceof StateFileError) return error
  const { errcode } = error as { errcode?: number }
  if (errcode === sqliteBusy) {
    return new StateFileError(
      `${path} is in use by another server (it holds its lock): stop it, or choose another --state-file`,
    )
  }
  // SQLite reads no further than the header of a file that is not a database, and changes nothing.
  if (errcode === sqliteNotADatabase) {
    return new StateFileError(
      `${path} is not a state database (a JSON-lines state file of version 0.1 is not read any more): start with a new file (another --state-file path); it was left as it is`,
    )
  }
  return new StateFileError(`cannot use ${path} as a state file: ${fileErrorInWords(path, error)}`)
}

/**
 * SQLite's result codes for a database another connection has locked, for a file that is not one,
 * and the family of its I/O errors (the low byte of `SQLITE_IOERR_FSYNC` and the others).
 */
const sqliteBusy = 5
const sqliteNotADatabase = 26
const sqliteIoErr = 10

/**
 * `node:sqlite`, loaded only for a state file. Node 22.13 and later have it; Node 22.12 only
 * behind `--experimental-sqlite`.
 */
function loadSqlite(): typeof import('node:sqlite') {
  const sqlite = process.getBuiltinModule('node:sqlite') as typeof import('node:sqlite') | undefined
  if (!sqlite) {
    throw new StateFileError(
      `--state-file needs node:sqlite, which Node ${process.version} lacks: use Node 22.13 or newer`,
    )
  }
  return sqlite
}

/**
 * Gives a user a profile field its row does not hold, as `null`: a file written before a field
 * was added to the profile (`src/api/profile-fields.ts`) still loads.
 */
function addMissingProfileFields(user: unknown): void {
  if (typeof user === 'object' && user !== null) Object.assign(user, profileOrNull(user))
}

/**
 * The key of a record that belongs to an organisation, as a state file stores it. The
 * organisation's length comes first, so no two `(orgId, id)` pairs share a key (joining them with
 * a separator would let `('a', 'b:c')` and `('a:b', 'c')` meet: ids and orgIds may hold any
 * character).
 */
export function orgKey(orgId: string, id: string): string {
  return `${orgId.length}:${orgId}:${id}`
}
