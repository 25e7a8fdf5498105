import { randomBytes } from 'node:crypto'
import {
  closeSync,
  fsyncSync,
  ftruncateSync,
  openSync,
  readFileSync,
  realpathSync,
  renameSync,
  statSync,
  truncateSync,
  unlinkSync,
  writeSync,
} from 'node:fs'
import { dirname } from 'node:path'
import { describeIssues } from '../errors.ts'
import { type MockState, mockStateSchema, type StateChange } from '../model/database.ts'
import { orgKey } from '../model/indexes.ts'

/**
 * The fields of a record's natural key in each collection: what a later change of the record is
 * matched by. An organisation's record is keyed by its `orgId` and its own id together.
 */
const keyFields: { [C in keyof MockState]: ReadonlyArray<keyof MockState[C][number]> } = {
  organisations: ['orgId'],
  apiKeys: ['keyHash'],
  users: ['userId'],
  userGroups: ['orgId', 'groupId'],
  learningPaths: ['orgId', 'learningPathId'],
  learningProgress: ['userId'],
  certificates: ['certificateId'],
  signInTokens: ['tokenHash'],
  webViewSessions: ['sessionHash'],
}

/** The natural key of `record` in collection `name`; `undefined` when a key field is not text. */
function keyOf(name: keyof MockState, record: object): string | undefined {
  const [first, second] = (keyFields[name] as readonly string[]).map(
    (field) => (record as Record<string, unknown>)[field],
  )
  if (typeof first !== 'string') return undefined
  if (keyFields[name].length === 1) return first
  return typeof second === 'string' ? orgKey(first, second) : undefined
}

const collections = Object.keys(keyFields) as Array<keyof MockState>
const collectionNames = new Set<string>(collections)
const header = { format: 'identify-api-mock-state', version: 1 }
const fatalDecoder = new TextDecoder('utf-8', { fatal: true })

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
 * One process at a time: `<path>.lock` holds the pid of the process that has the file open.
 */
export class StateFile {
  /** The file itself (a symbolic link given is followed, so compaction replaces its target). */
  readonly path: string
  readonly #lock: string
  readonly #warn: (message: string) => void
  /** -1 while no descriptor is open: closed, or lost to a failed reopening after compaction. */
  #fd = -1
  #closed = false
  #size: number
  #snapshotBytes: number

  private constructor(
    path: string,
    lock: string,
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
    const lock = acquireLock(target)
    try {
      const bytes = readIfExists(target)
      if (bytes === undefined) {
        const state = initial()
        const size = writeSnapshot(target, state)
        const file = new StateFile(target, lock, size, size, options.warn)
        return { file, state, loaded: false }
      }
      const { state, goodBytes, snapshotBytes } = parse(target, bytes)
      if (goodBytes < bytes.length) truncateSync(target, goodBytes)
      const file = new StateFile(target, lock, snapshotBytes, goodBytes, options.warn)
      return { file, state, loaded: true }
    } catch (error) {
      unlinkQuietly(lock)
      throw error
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
    const fd = this.#descriptor()
    try {
      writeAll(fd, bytes, this.path)
      fsyncSync(fd)
    } catch (error) {
      ftruncateSync(fd, this.#size)
      throw error
    }
    this.#size += bytes.length
    if (this.#size - this.#snapshotBytes > Math.max(1 << 20, this.#snapshotBytes)) {
      try {
        this.compact(current())
      } catch (error) {
        this.#warn(
          `could not compact ${this.path} (${(error as Error).message}); its changes stay in its log, and compaction is tried again with the next change`,
        )
      }
    }
  }

  /**
   * Rewrites the file as a single snapshot of `state`, atomically: a failure leaves the file and
   * this handle as they were.
   */
  compact(state: MockState): void {
    if (this.#closed) throw new Error(`${this.path} is closed`)
    const size = writeSnapshot(this.path, state)
    // The descriptor still points at the file the rename replaced: from now on, the new one.
    closeSync(this.#fd)
    this.#fd = -1
    this.#snapshotBytes = size
    this.#size = size
    this.#fd = openSync(this.path, 'a')
  }

  close(): void {
    if (this.#closed) return
    this.#closed = true
    if (this.#fd !== -1) closeSync(this.#fd)
    this.#fd = -1
    unlinkQuietly(this.#lock)
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

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException).code
}

/** `path`, or the file it links to. */
function followLink(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    return path
  }
}

/**
 * Takes `<path>.lock` for this process. A lock whose process is gone (or is this one: a
 * container restarts with the same pid) is stale and taken over.
 */
function acquireLock(path: string): string {
  const lock = `${path}.lock`
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lock, 'wx')
      try {
        writeSync(fd, String(process.pid))
      } finally {
        closeSync(fd)
      }
      return lock
    } catch (error) {
      if (errorCode(error) === 'ENOENT') {
        throw new StateFileError(
          `cannot use ${path} as a state file: its directory ${dirname(path)} does not exist`,
        )
      }
      if (errorCode(error) !== 'EEXIST') {
        throw new StateFileError(`cannot use ${path} as a state file: ${(error as Error).message}`)
      }
      const pid = Number(readIfExists(lock)?.toString() ?? '')
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isRunning(pid)) {
        throw new StateFileError(
          `${path} is in use by another process (pid ${pid}, see ${lock}): stop it, or choose another --state-file`,
        )
      }
      unlinkQuietly(lock)
    }
  }
  throw new StateFileError(`cannot use ${path} as a state file: ${lock} keeps coming back`)
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return errorCode(error) === 'EPERM'
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path)
  } catch {
    // Already gone.
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
    const fd = openSync(temporary, 'w')
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
  syncDirectory(dirname(path))
  return bytes.length
}

/** Makes a rename in `directory` durable, where the platform can (Windows cannot open one). */
function syncDirectory(directory: string): void {
  if (process.platform === 'win32') return
  const fd = openSync(directory, 'r')
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
    if (!collectionNames.has(name))
      return refuse(`its snapshot has an unknown collection "${name}"`)
  }
  for (const name of collections) {
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
    if (!isObject(entry) || !Array.isArray(entry.changes)) {
      return refuse(`line ${line} is not a list of changes`)
    }
    for (const change of entry.changes as unknown[]) {
      const name = isObject(change) && typeof change.c === 'string' ? change.c : ''
      const map = maps.get(name)
      if (!isObject(change) || !map || typeof change.key !== 'string') {
        return refuse(`line ${line} names no record`)
      }
      if (change.op === 'delete') map.delete(change.key)
      else if (change.op === 'put' && isObject(change.r)) {
        if (keyOf(name as keyof MockState, change.r) !== change.key) {
          return refuse(`line ${line} has a record that does not match its key`)
        }
        map.set(change.key, change.r)
      } else return refuse(`line ${line} has a change that is neither put nor delete`)
    }
  }
  const records = Object.fromEntries(
    collections.map((name) => [name, [...(maps.get(name)?.values() ?? [])]]),
  )
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
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
