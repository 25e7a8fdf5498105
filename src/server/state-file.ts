import {
  closeSync,
  fsyncSync,
  ftruncateSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  truncateSync,
  writeSync,
} from 'node:fs'
import { dirname } from 'node:path'
import { describeIssues } from '../errors.ts'
import { type MockState, mockStateSchema, type StateChange } from '../model/database.ts'

/** The natural key of a record in each collection: what a later change of it is matched by. */
const keyOf: { [C in keyof MockState]: (record: MockState[C][number]) => string } = {
  organisations: (r) => r.orgId,
  apiKeys: (r) => r.keyHash,
  users: (r) => r.userId,
  userGroups: (r) => orgScopedKey(r.orgId, r.groupId),
  learningPaths: (r) => orgScopedKey(r.orgId, r.learningPathId),
  learningProgress: (r) => r.userId,
  certificates: (r) => r.certificateId,
  signInTokens: (r) => r.tokenHash,
  webViewSessions: (r) => r.sessionHash,
}

/** `orgId` is length-prefixed, so no pair of strings can collide with another (a NUL could). */
function orgScopedKey(orgId: string, id: string): string {
  return `${orgId.length}:${orgId}:${id}`
}

const collections = Object.keys(keyOf) as Array<keyof MockState>
const header = { format: 'identify-api-mock-state', version: 1 }

/** A state file that cannot be read: it is left in place, and the message says why. */
export class StateFileError extends Error {
  override name = 'StateFileError'
}

/**
 * The durable state of a long-running server: a JSON-lines file whose first line is a snapshot of
 * every record and whose other lines are changes, each appended and flushed to disk before the
 * change is acknowledged. When the changes outgrow the snapshot, the file is rewritten whole into a
 * temporary file and renamed over the old one, so the cost of a write does not grow with the state
 * and no moment leaves a torn file. A torn last line (a crash mid-append) is dropped on load.
 */
export class StateFile {
  readonly path: string
  #fd: number
  #size: number
  #logBytes = 0
  #snapshotBytes = 0

  private constructor(path: string, fd: number, snapshotBytes: number, logBytes: number) {
    this.path = path
    this.#fd = fd
    this.#snapshotBytes = snapshotBytes
    this.#logBytes = logBytes
    this.#size = snapshotBytes + logBytes
  }

  /**
   * Opens `path`: the state it holds, or `undefined` for a file that does not exist yet (then
   * `initial()` is written as its first snapshot).
   */
  static open(
    path: string,
    initial: () => MockState,
  ): { file: StateFile; state: MockState; loaded: boolean } {
    const text = readIfExists(path)
    if (text === undefined) {
      const state = initial()
      const snapshotBytes = writeSnapshot(path, state)
      return {
        file: new StateFile(path, openSync(path, 'a'), snapshotBytes, 0),
        state,
        loaded: false,
      }
    }
    const { state, goodBytes, snapshotBytes } = parse(path, text)
    if (goodBytes < Buffer.byteLength(text)) truncateSync(path, goodBytes)
    const file = new StateFile(path, openSync(path, 'a'), snapshotBytes, goodBytes - snapshotBytes)
    return { file, state, loaded: true }
  }

  /**
   * Appends the changes of one operation as one line, flushed to disk before returning: a crash
   * mid-write leaves a torn last line, dropped on load, never half an operation. A write that
   * fails (a full disk) is cut off again, so that the next one does not follow half a line.
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
    try {
      const written = writeSync(this.#fd, bytes)
      if (written !== bytes.length)
        throw new Error(`${this.path}: wrote ${written} of ${bytes.length} bytes`)
      fsyncSync(this.#fd)
    } catch (error) {
      ftruncateSync(this.#fd, this.#size)
      throw error
    }
    this.#size += bytes.length
    this.#logBytes += bytes.length
    if (this.#logBytes > Math.max(1 << 20, this.#snapshotBytes)) this.compact(current())
  }

  /** Rewrites the file as a single snapshot of `state`, atomically. */
  compact(state: MockState): void {
    closeSync(this.#fd)
    this.#snapshotBytes = writeSnapshot(this.path, state)
    this.#size = this.#snapshotBytes
    this.#logBytes = 0
    this.#fd = openSync(this.path, 'a')
  }

  close(): void {
    closeSync(this.#fd)
  }
}

function keyFor(change: StateChange): string {
  return (keyOf[change.collection] as (record: object) => string)(change.record)
}

function readIfExists(path: string): string | undefined {
  try {
    if (!statSync(path).isFile()) throw new StateFileError(`${path} is not a file`)
    return readFileSync(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    if (error instanceof StateFileError) throw error
    throw new StateFileError(`cannot read ${path}: ${(error as Error).message}`)
  }
}

function writeSnapshot(path: string, state: MockState): number {
  const text = `${JSON.stringify({ ...header, state })}\n`
  const temporary = `${path}.${process.pid}.tmp`
  const fd = openSync(temporary, 'w')
  try {
    writeSync(fd, text)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  renameSync(temporary, path)
  // The rename itself is durable only once the directory that holds it is.
  const directory = openSync(dirname(path), 'r')
  try {
    fsyncSync(directory)
  } finally {
    closeSync(directory)
  }
  return Buffer.byteLength(text)
}

function parse(path: string, text: string) {
  const refuse = (why: string): never => {
    throw new StateFileError(`${path} is not a usable state file (${why}); it was left as it is`)
  }
  const lines = text.split('\n')
  // Whatever follows the last newline was being written when the process stopped.
  const torn = lines.pop() ?? ''
  if (lines.length === 0) return refuse('it is truncated')
  let snapshot: { format?: unknown; version?: unknown; state?: Partial<MockState> }
  try {
    snapshot = JSON.parse(lines[0] ?? '')
  } catch {
    return refuse('its snapshot line is not JSON')
  }
  if (snapshot.format !== header.format || snapshot.version !== header.version || !snapshot.state) {
    return refuse('it does not start with an identify-api-mock state snapshot')
  }
  const maps = {} as Record<keyof MockState, Map<string, object>>
  for (const name of collections) {
    const records: unknown = snapshot.state[name] ?? []
    if (!Array.isArray(records)) return refuse(`"${name}" is not a list`)
    const key = keyOf[name] as (record: object) => string
    maps[name] = new Map(records.map((record: object) => [key(record), record]))
  }
  for (let i = 1; i < lines.length; i++) {
    let entry: { changes?: Array<{ c?: string; op?: string; key?: unknown; r?: unknown }> }
    try {
      entry = JSON.parse(lines[i] ?? '')
    } catch {
      return refuse(`line ${i + 1} is not JSON`)
    }
    if (!Array.isArray(entry.changes)) return refuse(`line ${i + 1} is not a list of changes`)
    for (const change of entry.changes) {
      const map = maps[change.c as keyof MockState]
      if (!map || typeof change.key !== 'string') return refuse(`line ${i + 1} names no record`)
      if (change.op === 'put' && change.r && typeof change.r === 'object')
        map.set(change.key, change.r)
      else if (change.op === 'delete') map.delete(change.key)
      else return refuse(`line ${i + 1} has a change that is neither put nor delete`)
    }
  }
  const records = {} as Record<keyof MockState, object[]>
  for (const name of collections) records[name] = [...maps[name].values()]
  const parsed = mockStateSchema.safeParse(records)
  if (!parsed.success) {
    return refuse(
      `a record does not fit its schema: ${describeIssues(parsed.error.issues.slice(0, 1))}`,
    )
  }
  return {
    state: parsed.data,
    goodBytes: Buffer.byteLength(text) - Buffer.byteLength(torn),
    snapshotBytes: Buffer.byteLength(lines[0] ?? '') + 1,
  }
}
