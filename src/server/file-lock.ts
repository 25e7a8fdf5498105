import { randomBytes } from 'node:crypto'
import {
  closeSync,
  linkSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs'

/** Another process (or this one) holds the file: the message names it. */
export class FileLockedError extends Error {
  override name = 'FileLockedError'
}

/** The lock files this process holds: a second lock of one file in this process is refused too. */
const heldHere = new Set<string>()

/** How long a lock without a readable pid may be in the making before it counts as abandoned. */
const unreadableGraceMs = 5_000

/**
 * An exclusive lock on a file between processes: `<file>.lock`, which holds the owner's pid from
 * the moment it exists (it is written aside and linked into place). A lock whose process is gone
 * is stale and taken over; so is one holding this process's own pid that this process does not
 * hold (a container restarts with the pid its last run had).
 */
export class FileLock {
  readonly path: string
  readonly #content: string

  private constructor(path: string, content: string) {
    this.path = path
    this.#content = content
  }

  /** Locks `file`, or throws a {@link FileLockedError} that says who holds it. */
  static acquire(file: string): FileLock {
    const path = `${file}.lock`
    if (heldHere.has(path)) throw new FileLockedError(`${file} is already open in this process`)
    const content = String(process.pid)
    for (let attempt = 0; attempt < 3; attempt++) {
      if (createWith(path, content)) {
        heldHere.add(path)
        return new FileLock(path, content)
      }
      const found = readOrUndefined(path)
      if (found === undefined) continue
      const pid = Number(found)
      const valid = /^\d+$/.test(found) && pid > 0
      if (valid && isRunning(pid) && pid !== process.pid) {
        throw new FileLockedError(
          `${file} is in use by another process (pid ${pid}, see ${path}): stop it, or choose another --state-file`,
        )
      }
      if (!valid && Date.now() - modifiedMs(path) < unreadableGraceMs) {
        throw new FileLockedError(`${file} is being opened by another process (see ${path})`)
      }
      takeOver(path, found)
    }
    throw new FileLockedError(`${path} keeps coming back: another process is opening ${file}`)
  }

  /** Removes the lock, if it is still this one's. */
  release(): void {
    if (!heldHere.delete(this.path)) return
    if (readOrUndefined(this.path) === this.#content) unlinkQuietly(this.path)
  }
}

/** Creates `path` holding `content`, whole, unless it exists: whether it did. */
function createWith(path: string, content: string): boolean {
  const draft = `${path}.${randomBytes(6).toString('hex')}`
  writeFileSync(draft, content, { flag: 'wx' })
  try {
    linkSync(draft, path)
    return true
  } catch (error) {
    if (errorCode(error) === 'EEXIST') return false
    if (errorCode(error) !== 'EPERM' && errorCode(error) !== 'ENOTSUP') throw error
    // A file system without hard links: created empty, then written, which a reader may see.
    return createDirectly(path, content)
  } finally {
    unlinkQuietly(draft)
  }
}

function createDirectly(path: string, content: string): boolean {
  let fd: number
  try {
    fd = openSync(path, 'wx')
  } catch (error) {
    if (errorCode(error) === 'EEXIST') return false
    throw error
  }
  try {
    writeSync(fd, content)
  } finally {
    closeSync(fd)
  }
  return true
}

/** Removes a stale lock holding `stale`, unless another process replaced it meanwhile. */
function takeOver(path: string, stale: string): void {
  const aside = `${path}.${randomBytes(6).toString('hex')}.stale`
  try {
    renameSync(path, aside)
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return
    throw error
  }
  if (readOrUndefined(aside) !== stale) {
    // A fresh lock of another process: put it back, unless yet another has been taken since.
    try {
      linkSync(aside, path)
    } catch {
      // Taken since: that process holds the file.
    }
  }
  unlinkQuietly(aside)
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return errorCode(error) === 'EPERM'
  }
}

function readOrUndefined(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return undefined
  }
}

function modifiedMs(path: string): number {
  try {
    return statSync(path).mtimeMs
  } catch {
    return 0
  }
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
