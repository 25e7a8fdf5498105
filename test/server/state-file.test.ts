import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { promisify } from 'node:util'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { buildDataset, buildUser } from '../../fixtures/index.ts'
import type { PendingChanges } from '../../src/model/database.ts'
import { StateFile, StateFileError } from '../../src/server/state-file.ts'

const run = promisify(execFile)
let dir = ''
let path = ''
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'state-file-'))
  path = join(dir, 'state.db')
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const seeded = () => buildDataset({ organisations: 1, usersPerOrganisation: 4 }).state

const put = (record: object): PendingChanges['writes'][number] => ({
  collection: 'users',
  record,
  json: JSON.stringify(record),
})

/** Opens the file, reads it, and closes it again. */
function readBack() {
  const file = StateFile.open(path)
  try {
    return file.read()
  } finally {
    file.close()
  }
}

describe('the state file', () => {
  it('is created empty, takes a whole state, and reads it back in order', () => {
    const file = StateFile.open(path)
    expect(file.loaded).toBe(false)
    expect(file.read()).toEqual(empty())
    file.replace(seeded())
    file.close()
    const reopened = StateFile.open(path)
    expect(reopened.loaded).toBe(true)
    expect(reopened.read()).toEqual(seeded())
    reopened.close()
  })

  it('counts a file opened and never given a whole state as interrupted, and one written before the mark as whole', () => {
    // A start stopped before its seed: the tables, no state.
    StateFile.open(path).close()
    const interrupted = StateFile.open(path)
    expect([interrupted.loaded, interrupted.interrupted]).toEqual([false, true])
    interrupted.replace(seeded())
    interrupted.close()
    const whole = StateFile.open(path)
    expect([whole.loaded, whole.interrupted]).toEqual([true, false])
    whole.close()
    // A file written before the mark existed: records, and user_version 0.
    const old = new DatabaseSync(path)
    old.exec('PRAGMA user_version = 0')
    old.close()
    const earlier = StateFile.open(path)
    expect([earlier.loaded, earlier.interrupted]).toEqual([true, false])
    expect(earlier.read()).toEqual(seeded())
    earlier.close()
  })

  it('commits puts by key (in place, keeping the order) and deletes', () => {
    const file = StateFile.open(path)
    const state = seeded()
    file.replace(state)
    const [first] = state.users
    if (!first) throw new Error('no user')
    const added = buildUser({ id: 'added' })
    file.commit([put(added)])
    file.commit([put({ ...first, firstName: 'Changed' }), { ...put(added), json: null }])
    file.close()
    expect(readBack().users.map((u) => [u.userId, u.firstName])).toEqual(
      state.users.map((u) => [u.userId, u.userId === first.userId ? 'Changed' : u.firstName]),
    )
  })

  it('keeps none of an operation whose write fails midway', () => {
    const file = StateFile.open(path)
    file.replace(seeded())
    const broken = { collection: 'nothing', record: {}, json: '{}' } as never
    expect(() => file.commit([put(buildUser({ id: 'half' })), broken])).toThrow()
    file.commit([put(buildUser({ id: 'after' }))])
    file.close()
    expect(readBack().users.map((u) => u.id)).toEqual([...seeded().users.map((u) => u.id), 'after'])
  })

  it('commits a group of operations as one, the last write of a record winning', () => {
    const file = StateFile.open(path)
    file.replace(seeded())
    const added = buildUser({ id: 'added' })
    const gone = buildUser({ id: 'gone' })
    file.commitGroup([
      [put(added)],
      [put({ ...added, firstName: 'Second' })],
      [put(gone)],
      [{ ...put(gone), json: null }],
    ])
    file.close()
    const users = readBack().users
    expect(users.map((u) => u.id)).toEqual([...seeded().users.map((u) => u.id), 'added'])
    expect(users.at(-1)?.firstName).toBe('Second')
  })

  it('keeps none of a group whose last operation fails', () => {
    const file = StateFile.open(path)
    file.replace(seeded())
    const broken = { collection: 'nothing', record: {}, json: '{}' } as never
    expect(() =>
      file.commitGroup([
        [put(buildUser({ id: 'first' }))],
        [put(buildUser({ id: 'second' }))],
        [broken],
      ]),
    ).toThrow()
    file.close()
    expect(readBack().users.map((u) => u.id)).toEqual(seeded().users.map((u) => u.id))
  })

  it('refuses a JSON-lines file of version 0.1 in one line, and leaves it as it was', () => {
    const old = `${JSON.stringify({ format: 'identify-api-mock-state', version: 1, state: seeded() })}\n`
    writeFileSync(path, old, { mode: 0o644 })
    expect(() => StateFile.open(path)).toThrow(
      new StateFileError(
        `${path} is not a state database (a JSON-lines state file of version 0.1 is not read any more): start with a new file (another --state-file path); it was left as it is`,
      ),
    )
    expect(readFileSync(path, 'utf8')).toBe(old)
    expect(modeOf(path)).toBe('644')
  })

  it('refuses a SQLite database of something else, and leaves it as it was', () => {
    const other = new DatabaseSync(path)
    other.exec('CREATE TABLE notes (text TEXT)')
    other.close()
    const before = readFileSync(path)
    const mode = modeOf(path)
    expect(() => StateFile.open(path)).toThrow(/is a SQLite database, but not a state file/)
    expect(readFileSync(path)).toEqual(before)
    expect(modeOf(path)).toBe(mode)
  })

  it('refuses what is not a regular file before opening it, and leaves its mode as it was', async () => {
    // A named pipe, as a device such as /dev/null would be: opening it would block (or, for a
    // device, be taken as an empty database and have its mode set to 0600).
    const pipe = join(dir, 'pipe')
    await run('mkfifo', ['-m', '644', pipe])
    expect(() => StateFile.open(pipe)).toThrow(new StateFileError(`${pipe} is not a file`))
    expect(modeOf(pipe)).toBe('644')
    expect(() => StateFile.open(dir)).toThrow(new StateFileError(`${dir} is not a file`))
  })

  it('refuses a record that does not fit its schema, naming the collection', () => {
    const file = StateFile.open(path)
    file.replace(seeded())
    file.commit([put({ ...buildUser({ id: 'bad' }), registrationStatus: 'maybe' })])
    file.close()
    expect(readBack).toThrow(
      /state\.db is not a usable state file \(a record of "users" does not fit its schema: registrationStatus.*\); it was left as it is$/,
    )
  })

  it('loads a user written before a profile field was added, with that field null', () => {
    const file = StateFile.open(path)
    file.replace(seeded())
    const { ageBracket: _, ...older } = buildUser({ id: 'older', ageBracket: '25-34' })
    file.commit([put(older)])
    file.close()
    const user = readBack().users.find((u) => u.id === 'older')
    expect(user).toEqual({ ...older, ageBracket: null })
  })

  it('keeps the file and its log readable by their owner only', () => {
    writeFileSync(path, '', { mode: 0o644 })
    const file = StateFile.open(path)
    file.replace(seeded())
    expect([modeOf(path), modeOf(`${path}-wal`)]).toEqual(['600', '600'])
    file.close()
  })
})

describe('the state file lock', () => {
  it('refuses a second open in this process, and frees the file on close', () => {
    const file = StateFile.open(path)
    expect(() => StateFile.open(path)).toThrow(/is already open in this process/)
    file.close()
    StateFile.open(path).close()
  })

  it('refuses another process at once while it is held, and lets it in once released', async () => {
    const file = StateFile.open(path)
    expect(await openInChild(path)).toBe(
      `${path} is in use by another server (it holds its lock): stop it, or choose another --state-file`,
    )
    file.close()
    expect(await openInChild(path)).toBe('opened')
  }, 30_000)

  it('refuses with one line on a Node without node:sqlite (22.12 without its flag)', () => {
    const getBuiltinModule = process.getBuiltinModule.bind(process)
    vi.spyOn(process, 'getBuiltinModule').mockImplementation((id: string) =>
      id === 'node:sqlite' ? undefined : getBuiltinModule(id),
    )
    expect(() => StateFile.open(path)).toThrow(
      new StateFileError(
        `--state-file needs node:sqlite, which Node ${process.version} lacks: use Node 22.13 or newer`,
      ),
    )
    vi.restoreAllMocks()
    StateFile.open(path).close()
  })
})

function empty() {
  return Object.fromEntries(Object.keys(seeded()).map((name) => [name, []]))
}

/** Opens `file` in another process: `opened`, or the message it was refused with. */
async function openInChild(file: string): Promise<string> {
  const script = `
    import { StateFile } from ${JSON.stringify(new URL('../../src/server/state-file.ts', import.meta.url).href)}
    try {
      StateFile.open(${JSON.stringify(file)}).close()
      console.log('opened')
    } catch (error) {
      console.log(error.message)
    }`
  const { stdout } = await run(process.execPath, [
    '--import',
    'tsx',
    '--input-type=module',
    '-e',
    script,
  ])
  return stdout.trim()
}

const modeOf = (file: string) => (statSync(file).mode & 0o777).toString(8)
