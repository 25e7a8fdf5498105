import { randomBytes } from 'node:crypto'
import {
  chmodSync,
  closeSync,
  fsyncSync,
  ftruncateSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  statSync,
  truncateSync,
  writeSync,
} from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import { describeIssues } from '../errors.ts'
import { type CollectionName, collectionNames, collectionTable } from '../model/collections.ts'
import { type MockState, mockStateSchema, type StateChange } from '../model/database.ts'
import { orgKey } from '../model/indexes.ts'
import { profileFieldNames } from '../profile-fields.ts'
import { errorCode, FileLock, FileLockedError, unlinkQuietly } from './file-lock.ts'
import { fileErrorInWords } from './files/file-errors.ts'

/** The natural key of `record` in collection `name`; `undefined` when a key field is not text. */
function keyOf(name: CollectionName, record: object): string | undefined {
  const [first, second] = collectionTable[name].key.map(
    (field) => (record as Record<string, unknown>)[field],
  )
  if (typeof first !== 'string') return undefined
  if (collectionTable[name].key.length === 1) return first
  return typeof second === 'string' ? orgKey(first, second) : undefined
}

const header = { format: 'identify-api-mock-state', version: 1 }
const fatalDecoder = new TextDecoder('utf-8', { fatal: true })
/** The file holds hashes of secrets and users' data: readable and writable by its owner only. */
const privateMode = 0o600

/** A state file that cannot be used: it is left in place, and the message says why. */
export class StateFileError extends Error {
  override name = 'StateFileError'
}

export interface StateFileOptions {
  /** Told of a compaction that failed (the changes stay in the log; it is tried again later). */
  warn?: (message: string) => void
}

/**
 * The durable state of a long-running server: a JSON-lines file whose first line is a snapshot of
 * every record and whose other lines are changes, each appended and flushed to disk before the
 * change is acknowledged. When the changes outgrow the snapshot, the file is rewritten whole into a
 * temporary file and renamed over the old one, so the cost of a write does not grow with the state
 * and no moment leaves a torn file. A torn last line (a crash mid-append) is dropped on load.
 *
 * One process at a time: the process that has the file open holds a kernel lock on `<path>.lock`
 * (see {@link FileLock}).
 */
export class StateFile {
  /** The file itself (a symbolic link given is followed, so compaction replaces its target). */
  readonly path: string
  readonly #lock: FileLock
  readonly #warn: (message: string) => void
  /** -1 while no descriptor is open: closed, or lost to a failed reopening after compaction. */
  #fd = -1
  #closed = false
  /** A failed append could not be cut off: the file must be rewritten before the next one. */
  #torn = false
  #size: number
  #snapshotBytes: number

  private constructor(
    path: string,
    lock: FileLock,
    snapshotBytes: number,
    size: number,
    warn = noWarn,
  ) {
    this.path = path
    this.#lock = lock
    this.#snapshotBytes = snapshotBytes
    this.#size = size
    this.#warn = warn
    this.#fd = openSync(path, 'a')
  }

  /**
   * Opens `path`: the state it holds, or for a file that does not exist yet `initial()`, written
   * as its first snapshot. Throws a {@link StateFileError} for a file it cannot use.
   */
  static open(
    path: string,
    initial: () => MockState,
    options: StateFileOptions = {},
  ): { file: StateFile; state: MockState; loaded: boolean } {
    const target = followLink(path)
    let lock: FileLock
    try {
      lock = FileLock.acquire(target, privateMode)
    } catch (error) {
      throw asStateFileError(target, error)
    }
    try {
      removeLeftovers(target)
      const bytes = readIfExists(target)
      if (bytes === undefined) {
        const state = initial()
        const size = writeSnapshot(target, state)
        syncDirectory(target)
        const file = new StateFile(target, lock, size, size, options.warn)
        return { file, state, loaded: false }
      }
      const { state, goodBytes, snapshotBytes, droppedHints } = parse(target, bytes)
      chmodSync(target, privateMode)
      if (goodBytes < bytes.length) truncateSync(target, goodBytes)
      const file = new StateFile(target, lock, snapshotBytes, goodBytes, options.warn)
      if (droppedHints) file.compact(state)
      return { file, state, loaded: true }
    } catch (error) {
      lock.release()
      throw asStateFileError(target, error)
    }
  }

  /**
   * Appends the changes of one operation as one line, flushed to disk before returning: a crash
   * mid-write leaves a torn last line, dropped on load, never half an operation. A write that
   * fails (a full disk) is cut off again, so that the next one does not follow half a line.
   * Once the changes outgrow the snapshot, compacts; a compaction that fails is only told of (the
   * change is already on disk) and tried again with the next change.
   */
  append(changes: readonly StateChange[], current: () => MockState): void {
    if (changes.length === 0) return
    const line = JSON.stringify({
      changes: changes.map((c) => ({
        c: c.collection,
        op: c.op,
        key: keyFor(c),
        ...(c.op === 'put' && { r: c.record }),
      })),
    })
    const bytes = Buffer.from(`${line}\n`)
    if (this.#torn) this.compact(current())
    const fd = this.#descriptor()
    try {
      writeAll(fd, bytes, this.path)
      fsyncSync(fd)
    } catch (error) {
      try {
        ftruncateSync(fd, this.#size)
      } catch {
        this.#torn = true
      }
      throw error
    }
    this.#size += bytes.length
    if (this.#size - this.#snapshotBytes > Math.max(1 << 20, this.#snapshotBytes)) {
      try {
        this.compact(current())
      } catch (error) {
        this.#warn(
          `could not rewrite ${this.path} (${(error as Error).message}); the changes stay in its log, and the rewrite is tried again with the next change`,
        )
      }
    }
  }

  /**
   * Rewrites the file as a single snapshot of `state`, atomically. The rename is the commit
   * point: a failure before it leaves the file and this handle as they were; after it, the file
   * is the new one, and only its durability against a power cut may be reported as lost.
   */
  compact(state: MockState): void {
    if (this.#closed) throw new Error(`${this.path} is closed`)
    const size = writeSnapshot(this.path, state)
    // The descriptor points at the file the rename replaced; the next append opens the new one.
    const old = this.#fd
    this.#fd = -1
    this.#snapshotBytes = size
    this.#size = size
    this.#torn = false
    if (old !== -1) closeQuietly(old)
    try {
      syncDirectory(this.path)
    } catch (error) {
      this.#warn(
        `rewrote ${this.path}, but could not flush its directory (${(error as Error).message}): a power cut could bring back the file it replaced`,
      )
    }
  }

  close(): void {
    if (this.#closed) return
    this.#closed = true
    if (this.#fd !== -1) closeQuietly(this.#fd)
    this.#fd = -1
    this.#lock.release()
  }

  /** The open descriptor, opened again if a compaction lost it; never one after `close`. */
  #descriptor(): number {
    if (this.#closed) throw new Error(`${this.path} is closed`)
    if (this.#fd === -1) this.#fd = openSync(this.path, 'a')
    return this.#fd
  }
}

const noWarn = (_message: string) => {}

function keyFor(change: StateChange): string | undefined {
  return keyOf(change.collection, change.record)
}

/**
 * `path`, or the file it links to, even one that does not exist yet: compaction renames over the
 * file, and must not replace a link with a file of its own.
 */
function followLink(path: string): string {
  let current = path
  for (let hops = 0; hops < 32; hops++) {
    try {
      return realpathSync(current)
    } catch {
      try {
        current = resolve(dirname(current), readlinkSync(current))
      } catch {
        return current
      }
    }
  }
  return current
}

/**
 * `error`, as the {@link StateFileError} of a file at `path` that cannot be used: a failure to
 * lock, read or write it, told in one line.
 */
export function asStateFileError(path: string, error: unknown): StateFileError {
  if (error instanceof StateFileError) return error
  if (error instanceof FileLockedError) return new StateFileError(error.message)
  return new StateFileError(`cannot use ${path} as a state file: ${fileErrorInWords(path, error)}`)
}

/** Temporary files of rewrites that a crash interrupted (the lock says none is under way). */
function removeLeftovers(path: string): void {
  const prefix = `${basename(path)}.`
  for (const entry of readdirSync(dirname(path))) {
    const middle = entry.slice(prefix.length, -'.tmp'.length)
    if (entry.startsWith(prefix) && entry.endsWith('.tmp') && /^[0-9a-f]{12}$/.test(middle)) {
      unlinkQuietly(join(dirname(path), entry))
    }
  }
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd)
  } catch {
    // Closed already, or a failure that loses nothing: every write was flushed.
  }
}

function readIfExists(path: string): Buffer | undefined {
  try {
    if (!statSync(path).isFile()) throw new StateFileError(`${path} is not a file`)
    return readFileSync(path)
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined
    if (error instanceof StateFileError) throw error
    throw new StateFileError(`cannot read ${path}: ${(error as Error).message}`)
  }
}

/** Writes all of `bytes`: a full disk may take part of a write without an error. */
function writeAll(fd: number, bytes: Buffer, path: string): void {
  const written = writeSync(fd, bytes)
  if (written !== bytes.length) {
    throw new Error(`${path}: only ${written} of ${bytes.length} bytes written (is the disk full?)`)
  }
}

/**
 * Writes `state` as the whole file: into a temporary file, flushed, then renamed over `path`.
 * Throws before the rename, with the temporary file removed and `path` untouched.
 */
function writeSnapshot(path: string, state: MockState): number {
  const bytes = Buffer.from(`${JSON.stringify({ ...header, state })}\n`)
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`
  try {
    const fd = openSync(temporary, 'w', privateMode)
    try {
      writeAll(fd, bytes, temporary)
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    renameSync(temporary, path)
  } catch (error) {
    unlinkQuietly(temporary)
    throw error
  }
  return bytes.length
}

/** Makes a rename of `path` durable, where the platform can (Windows cannot open a directory). */
function syncDirectory(path: string): void {
  if (process.platform === 'win32') return
  const fd = openSync(dirname(path), 'r')
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

function parse(path: string, bytes: Buffer) {
  const refuse = (why: string): never => {
    throw new StateFileError(`${path} is not a usable state file (${why}); it was left as it is`)
  }
  // Whatever follows the last newline was being written when the process stopped.
  const goodBytes = bytes.lastIndexOf(0x0a) + 1
  if (goodBytes === 0) return refuse('it is truncated')
  let text = ''
  try {
    text = fatalDecoder.decode(bytes.subarray(0, goodBytes))
  } catch {
    return refuse('it is not UTF-8 text')
  }
  const lines = text.slice(0, -1).split('\n')
  const json = (line: number): unknown => {
    try {
      return JSON.parse(lines[line - 1] ?? '')
    } catch {
      return refuse(line === 1 ? 'its snapshot line is not JSON' : `line ${line} is not JSON`)
    }
  }
  const snapshot = json(1)
  if (
    !isObject(snapshot) ||
    snapshot.format !== header.format ||
    snapshot.version !== header.version ||
    !isObject(snapshot.state) ||
    Object.keys(snapshot).some((key) => !Object.hasOwn(header, key) && key !== 'state')
  ) {
    return refuse('it does not start with an identify-api-mock state snapshot')
  }
  const maps = new Map<string, Map<string, object>>()
  for (const name of Object.keys(snapshot.state)) {
    if (!Object.hasOwn(collectionTable, name))
      return refuse(`its snapshot has an unknown collection "${name}"`)
  }
  for (const name of collectionNames) {
    const records: unknown = snapshot.state[name] ?? []
    if (!Array.isArray(records)) return refuse(`"${name}" is not a list`)
    const map = new Map<string, object>()
    for (const record of records) {
      if (!isObject(record)) return refuse(`a record of "${name}" is not an object`)
      const key = keyOf(name, record)
      if (key === undefined) return refuse(`a record of "${name}" has no key`)
      if (map.has(key)) return refuse(`two records of "${name}" have the same key`)
      map.set(key, record)
    }
    maps.set(name, map)
  }
  for (let line = 2; line <= lines.length; line++) {
    const entry = json(line)
    if (!isObject(entry) || !Array.isArray(entry.changes) || Object.keys(entry).length !== 1) {
      return refuse(`line ${line} is not a list of changes`)
    }
    for (const change of entry.changes as unknown[]) {
      const name = isObject(change) && typeof change.c === 'string' ? change.c : ''
      const map = maps.get(name)
      if (!isObject(change) || !map || typeof change.key !== 'string') {
        return refuse(`line ${line} names no record`)
      }
      const fields = Object.keys(change).sort().join()
      if (change.op === 'delete' && fields === 'c,key,op') map.delete(change.key)
      else if (change.op === 'put' && fields === 'c,key,op,r') {
        if (!isObject(change.r)) return refuse(`line ${line} has a record that is not an object`)
        if (keyOf(name as CollectionName, change.r) !== change.key) {
          return refuse(`line ${line} has a record that does not match its key`)
        }
        map.set(change.key, change.r)
      } else return refuse(`line ${line} has a change that is neither a put nor a delete`)
    }
  }
  const records = Object.fromEntries(
    collectionNames.map((name) => [name, [...(maps.get(name)?.values() ?? [])]]),
  )
  const droppedHints = dropKeyHints(records.apiKeys as object[])
  addMissingProfileFields(records.users as object[])
  const parsed = mockStateSchema.safeParse(records)
  if (!parsed.success) {
    const [issue] = parsed.error.issues
    return refuse(`a record does not fit its schema: ${describeIssues(issue ? [issue] : [])}`)
  }
  const userKeys = new Set(parsed.data.users.map((u) => orgKey(u.orgId, u.id)))
  if (userKeys.size !== parsed.data.users.length) {
    return refuse('two users of one organisation have the same id')
  }
  return {
    state: parsed.data,
    goodBytes,
    snapshotBytes: Buffer.byteLength(lines[0] ?? '') + 1,
    droppedHints,
  }
}

/**
 * Removes the `keyHint` (the key's last four characters) that API key records held before: no part
 * of a key is kept in clear any more. Whether any was found, so that the file is rewritten without.
 */
function dropKeyHints(apiKeys: object[]): boolean {
  let found = false
  for (const record of apiKeys) {
    if (Object.hasOwn(record, 'keyHint')) {
      delete (record as { keyHint?: unknown }).keyHint
      found = true
    }
  }
  return found
}

/**
 * Gives each user a profile field its file does not hold, as `null`: a file written before a field
 * was added to the profile (`src/profile-fields.ts`) still loads.
 */
function addMissingProfileFields(users: object[]): void {
  for (const user of users) {
    for (const field of profileFieldNames) {
      if (!Object.hasOwn(user, field)) Object.assign(user, { [field]: null })
    }
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
