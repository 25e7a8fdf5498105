import { execFile } from 'node:child_process'
import fs, {
  appendFileSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { syncBuiltinESMExports } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { buildDataset, buildUser } from '../../fixtures/index.ts'
import type { MockState } from '../../src/root/index.ts'
import { StateFile, StateFileError } from '../../src/server/state-file.ts'

const run = promisify(execFile)
let dir = ''
let path = ''
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'state-file-'))
  path = join(dir, 'state.jsonl')
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const seeded = () => buildDataset({ organisations: 1, usersPerOrganisation: 4 }).state

/** Appends a new user `id`, closes `file`, and answers the ids of the users it reads back. */
function appendUserAndReopen(file: StateFile, state: MockState, id: string): string[] {
  file.append([{ collection: 'users', op: 'put', record: buildUser({ id }) }], () => state)
  file.close()
  const reopened = StateFile.open(path, seeded)
  reopened.file.close()
  return reopened.state.users.map((u) => u.id)
}

describe('the state file', () => {
  it('starts from the initial state when missing, and reads it back', () => {
    const { file, state, loaded } = StateFile.open(path, seeded)
    file.close()
    expect(loaded).toBe(false)
    expect(state).toEqual(seeded())
    expect(StateFile.open(path, () => ({}) as MockState)).toMatchObject({
      loaded: true,
      state: seeded(),
    })
  })

  it('replays appended changes: puts replace by key, deletes remove', () => {
    const { file, state } = StateFile.open(path, seeded)
    const [first] = state.users
    if (!first) throw new Error('no user')
    const added = buildUser({ id: 'added' })
    file.append([{ collection: 'users', op: 'put', record: added }], () => state)
    file.append(
      [
        { collection: 'users', op: 'put', record: { ...first, firstName: 'Changed' } },
        { collection: 'users', op: 'delete', record: added },
      ],
      () => state,
    )
    file.close()
    const reopened = StateFile.open(path, seeded)
    reopened.file.close()
    expect(reopened.state.users.map((u) => [u.userId, u.firstName])).toEqual(
      state.users.map((u) => [u.userId, u.userId === first.userId ? 'Changed' : u.firstName]),
    )
  })

  it('drops a torn last line, a whole operation, and goes on appending after it', () => {
    const { file, state } = StateFile.open(path, seeded)
    file.append(
      [{ collection: 'users', op: 'put', record: buildUser({ id: 'kept' }) }],
      () => state,
    )
    file.close()
    appendFileSync(path, '{"changes":[{"c":"users","op":"put","key":"x","r":{"id":"to')
    const reopened = StateFile.open(path, seeded)
    expect(reopened.state.users.some((u) => u.id === 'kept')).toBe(true)
    expect(readFileSync(path, 'utf8').endsWith('\n')).toBe(true)
    reopened.file.append(
      [{ collection: 'users', op: 'put', record: buildUser({ id: 'after' }) }],
      () => state,
    )
    reopened.file.close()
    const again = StateFile.open(path, seeded)
    again.file.close()
    expect(again.state.users.map((u) => u.id)).toEqual(expect.arrayContaining(['kept', 'after']))
  })

  /** The file with its snapshot changed by `edit`. */
  const editSnapshot =
    (
      edit: (snapshot: {
        state: { users: unknown[]; [name: string]: unknown[] }
        [field: string]: unknown
      }) => void,
    ) =>
    (text: string) => {
      const [first = '', ...rest] = text.split('\n')
      const snapshot = JSON.parse(first)
      edit(snapshot)
      return [JSON.stringify(snapshot), ...rest].join('\n')
    }
  const firstUser = (t: string) => JSON.parse(t.split('\n')[0] ?? '').state.users[0]

  const corruptions: Array<[string, (text: string) => string | Buffer, RegExp]> = [
    ['a bad line before the last', (t) => `${t}not json\n{"changes":[]}\n`, /line 2 is not JSON/],
    [
      'bytes that are not UTF-8 before the last line',
      (t) => Buffer.concat([Buffer.from(t), Buffer.from([0xff, 0x0a]), Buffer.from('{"chan')]),
      /not UTF-8 text/,
    ],
    [
      'a record listed twice',
      editSnapshot((s) => s.state.users.push(s.state.users[0])),
      /two records of "users" have the same key/,
    ],
    [
      'two users with one id in one organisation',
      editSnapshot((s) => s.state.users.push({ ...(s.state.users[0] as object), userId: 'other' })),
      /two users of one organisation have the same id/,
    ],
    [
      'a record that does not fit its schema',
      editSnapshot((s) => {
        Object.assign(s.state.users[0] as object, { registrationStatus: 'xregistered' })
      }),
      /a record does not fit its schema: users\.0\.registrationStatus: .+/,
    ],
    [
      'a record that is not an object',
      editSnapshot((s) => s.state.users.push(null)),
      /a record of "users" is not an object/,
    ],
    [
      'an unknown collection',
      editSnapshot((s) => {
        s.state.secrets = []
      }),
      /unknown collection "secrets"/,
    ],
    [
      'a snapshot with a field of another format',
      editSnapshot((s) => {
        s.compressed = true
      }),
      /does not start with an identify-api-mock state snapshot/,
    ],
    [
      'a change whose record does not match its key',
      (t) =>
        `${t}${JSON.stringify({ changes: [{ c: 'users', op: 'put', key: 'twin', r: firstUser(t) }] })}\n`,
      /line 2 has a record that does not match its key/,
    ],
    [
      'a change of a collection named after a property of every object',
      (t) => `${t}{"changes":[{"c":"__proto__","op":"delete","key":"x"}]}\n`,
      /line 2 names no record/,
    ],
    ['a truncated snapshot', (t) => t.slice(0, 40), /truncated/],
    [
      'another format',
      () => '{"hello":"world"}\n',
      /does not start with an identify-api-mock state snapshot/,
    ],
    [
      'a change without a record',
      (t) => `${t}{"changes":[{"c":"nope","op":"put"}]}\n`,
      /names no record/,
    ],
  ]
  for (const [what, corrupt, message] of corruptions) {
    it(`refuses ${what} with a clear message and leaves the file in place`, () => {
      StateFile.open(path, seeded).file.close()
      writeFileSync(path, corrupt(readFileSync(path, 'utf8')))
      const before = readFileSync(path)
      expect(() => StateFile.open(path, seeded)).toThrow(StateFileError)
      expect(() => StateFile.open(path, seeded)).toThrow(message)
      expect(readFileSync(path)).toEqual(before)
    })
  }

  it('compacts into one snapshot line once the changes outgrow it, atomically', () => {
    const { file, state } = StateFile.open(path, seeded)
    const current: MockState = { ...state, users: [...state.users] }
    for (let i = 0; i < 3000; i++) {
      const user = buildUser({ id: `bulk-${i}`, firstName: 'x'.repeat(300) })
      current.users.push(user)
      file.append([{ collection: 'users', op: 'put', record: user }], () => current)
    }
    file.close()
    const lines = readFileSync(path, 'utf8').trim().split('\n')
    expect(lines.length).toBeLessThan(3000)
    expect(readdirSync(dir).sort()).toEqual(['state.jsonl', 'state.jsonl.lock'])
    const reopened = StateFile.open(path, seeded)
    reopened.file.close()
    expect(reopened.state.users.map((u) => u.id)).toEqual(current.users.map((u) => u.id))
    // 3,000 appends, each flushed to disk: on a shared machine that alone can outlast 5 s.
  }, 60_000)
})

describe('the state file when a write fails', () => {
  const unserialisable = () => ({ ...seeded(), users: [{ id: 1n }] }) as unknown as MockState

  it('keeps the file and its handle as they were when a compaction fails', () => {
    const { file, state } = StateFile.open(path, seeded)
    const before = readFileSync(path)
    expect(() => file.compact(unserialisable())).toThrow(/BigInt/)
    expect(readFileSync(path)).toEqual(before)
    expect(appendUserAndReopen(file, state, 'after')).toContain('after')
  })

  it('removes its temporary file when the rename fails', () => {
    const { file } = StateFile.open(path, seeded)
    rmSync(path)
    mkdirSync(path)
    writeFileSync(join(path, 'inside'), '')
    expect(() => file.compact(seeded())).toThrow()
    file.close()
    expect(readdirSync(dir).sort()).toEqual(['state.jsonl', 'state.jsonl.lock'])
  })

  it('keeps a change already on disk when the compaction after it fails, and says so', () => {
    const warnings: string[] = []
    const { file, state } = StateFile.open(path, seeded, { warn: (m) => warnings.push(m) })
    const big = { ...buildUser({ id: 'big' }), firstName: 'x'.repeat(2 << 20) }
    file.append([{ collection: 'users', op: 'put', record: big }], unserialisable)
    expect(warnings).toEqual([expect.stringMatching(/could not rewrite .*BigInt.*tried again/)])
    file.append([{ collection: 'users', op: 'put', record: buildUser({ id: 'next' }) }], () => ({
      ...state,
      users: [...state.users, big],
    }))
    expect(readFileSync(path, 'utf8').trim().split('\n')).toHaveLength(1)
    file.close()
    const reopened = StateFile.open(path, seeded)
    reopened.file.close()
    expect(reopened.state.users.map((u) => u.id)).toContain('big')
  })
})

describe('the state file when a write fails after the rename', () => {
  afterEach(() => {
    vi.restoreAllMocks()
    syncBuiltinESMExports()
  })

  it('takes the rewrite, says its directory could not be flushed, and appends to the new file', () => {
    const warnings: string[] = []
    const { file, state } = StateFile.open(path, seeded, { warn: (m) => warnings.push(m) })
    const openSync = fs.openSync
    vi.spyOn(fs, 'openSync').mockImplementation((target, ...rest) => {
      if (target === dir) throw Object.assign(new Error('EIO: i/o error'), { code: 'EIO' })
      return openSync(target, ...rest)
    })
    syncBuiltinESMExports()
    file.compact({ ...state, users: [] })
    vi.restoreAllMocks()
    syncBuiltinESMExports()
    expect(warnings).toEqual([expect.stringMatching(/could not flush its directory \(EIO/)])
    expect(appendUserAndReopen(file, state, 'after')).toEqual(['after'])
  })
})

describe('the state file lock', () => {
  it('refuses a second open in this process, and frees the file on close', () => {
    const { file } = StateFile.open(path, seeded)
    expect(() => StateFile.open(path, seeded)).toThrow(/is already open in this process/)
    file.close()
    StateFile.open(path, seeded).file.close()
  })

  it('refuses another process at once while it is held, and lets it in once released', async () => {
    const { file } = StateFile.open(path, seeded)
    const other = await openInChild(path)
    expect(other).toMatch(/is in use by another server \(it holds .*state\.jsonl\.lock\)/)
    file.close()
    expect(await openInChild(path)).toBe('opened')
  })

  it('refuses with one line on a Node without node:sqlite (22.12 without its flag)', () => {
    const getBuiltinModule = process.getBuiltinModule.bind(process)
    vi.spyOn(process, 'getBuiltinModule').mockImplementation((id: string) =>
      id === 'node:sqlite' ? undefined : getBuiltinModule(id),
    )
    expect(() => StateFile.open(path, seeded)).toThrow(
      new StateFileError(
        `--state-file needs node:sqlite to lock the file, which Node ${process.version} lacks: use Node 22.13 or newer`,
      ),
    )
    vi.restoreAllMocks()
    StateFile.open(path, seeded).file.close()
  })

  it('takes over the pid file a version before the kernel lock left', () => {
    writeFileSync(`${path}.lock`, '12345')
    StateFile.open(path, seeded).file.close()
  })

  it('keeps the file and its lock readable by their owner only, across rewrites', () => {
    writeFileSync(
      path,
      `${JSON.stringify({ format: 'identify-api-mock-state', version: 1, state: seeded() })}\n`,
      { mode: 0o644 },
    )
    writeFileSync(`${path}.lock`, '', { mode: 0o644 })
    const { file, state } = StateFile.open(path, seeded)
    const modes = () => [path, `${path}.lock`].map((p) => (statSync(p).mode & 0o777).toString(8))
    expect(modes()).toEqual(['600', '600'])
    file.compact(state)
    expect(modes()).toEqual(['600', '600'])
    file.close()
    rmSync(path)
    StateFile.open(path, seeded).file.close()
    expect(modes()).toEqual(['600', '600'])
  })

  it('drops the key hints a file written before holds, and rewrites it without them', () => {
    const state = seeded()
    const withHints = {
      ...state,
      apiKeys: state.apiKeys.map((k) => ({ ...k, keyHint: '…abcd' })),
    }
    writeFileSync(
      path,
      `${JSON.stringify({ format: 'identify-api-mock-state', version: 1, state: withHints })}\n`,
    )
    const opened = StateFile.open(path, seeded)
    opened.file.close()
    expect(opened.state.apiKeys).toEqual(state.apiKeys)
    expect(readFileSync(path, 'utf8')).not.toContain('keyHint')
  })

  it('removes the temporary files of rewrites a crash interrupted, and nothing else', () => {
    StateFile.open(path, seeded).file.close()
    writeFileSync(`${path}.0123456789ab.tmp`, '{"torn')
    writeFileSync(join(dir, 'notes.tmp'), 'mine')
    StateFile.open(path, seeded).file.close()
    expect(readdirSync(dir).sort()).toEqual(['notes.tmp', 'state.jsonl', 'state.jsonl.lock'])
  })
})

describe('the state file, regressions', () => {
  it('follows a symbolic link to a file that does not exist yet', () => {
    const target = join(dir, 'target.jsonl')
    const link = join(dir, 'link.jsonl')
    symlinkSync(target, link)
    StateFile.open(link, seeded).file.close()
    expect(lstatSync(link).isSymbolicLink()).toBe(true)
    expect(readFileSync(target, 'utf8')).toMatch(/^\{"format":"identify-api-mock-state"/)
  })

  it('follows a symbolic link, so that a compaction rewrites its target and keeps the link', () => {
    const target = join(dir, 'target.jsonl')
    StateFile.open(target, seeded).file.close()
    const link = join(dir, 'link.jsonl')
    symlinkSync(target, link)
    const { file } = StateFile.open(link, seeded)
    file.compact({ ...seeded(), users: [] })
    file.close()
    expect(lstatSync(link).isSymbolicLink()).toBe(true)
    const reopened = StateFile.open(target, seeded)
    reopened.file.close()
    expect(reopened.state.users).toEqual([])
  })

  it('keeps the groups of organisations whose ids differ only around a NUL apart', () => {
    const a = { orgId: 'a', groupId: 'b\u0000c', name: 'of a' }
    const b = { orgId: 'a\u0000b', groupId: 'c', name: 'of a\\0b' }
    const { file, state } = StateFile.open(path, seeded)
    file.append(
      [
        { collection: 'userGroups', op: 'put', record: a },
        { collection: 'userGroups', op: 'put', record: b },
      ],
      () => state,
    )
    file.close()
    const reopened = StateFile.open(path, seeded)
    reopened.file.close()
    expect(reopened.state.userGroups).toEqual(expect.arrayContaining([a, b]))
  })
})

/** Opens `file` in another Node process: `opened`, or the message of its refusal. */
async function openInChild(file: string): Promise<string> {
  const script = `
    import { StateFile } from ${JSON.stringify(new URL('../../src/server/state-file.ts', import.meta.url).href)}
    try {
      StateFile.open(${JSON.stringify(file)}, () => { throw new Error('no initial state needed') }).file.close()
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
const refusal = (why: string) =>
  new StateFileError(`cannot use ${path} as a state file: its lock ${path}.lock ${why}`)

describe('the state file lock', () => {
  it('refuses a symbolic link planted as the lock, leaving its target as it was', () => {
    const victim = join(dir, 'victim')
    writeFileSync(victim, '12345', { mode: 0o644 })
    symlinkSync(victim, `${path}.lock`)
    expect(() => StateFile.open(path, seeded)).toThrow(refusal('is a symbolic link'))
    expect(modeOf(victim)).toBe('644')
    expect(readFileSync(victim, 'latin1')).toBe('12345')
  })

  it('never creates the file a dangling link planted as the lock names', () => {
    const victim = join(dir, 'created-through-the-link')
    symlinkSync(victim, `${path}.lock`)
    expect(() => StateFile.open(path, seeded)).toThrow(refusal('is a symbolic link'))
    expect(existsSync(victim)).toBe(false)
  })

  it('refuses a lock that is not a regular file', () => {
    mkdirSync(`${path}.lock`)
    expect(() => StateFile.open(path, seeded)).toThrow(refusal('is not a regular file'))
  })

  // Only root can give a file to another user.
  it.runIf(process.getuid?.() === 0)('refuses a lock file that belongs to another user', () => {
    writeFileSync(`${path}.lock`, '', { mode: 0o644 })
    chownSync(`${path}.lock`, 65534, 65534)
    expect(() => StateFile.open(path, seeded)).toThrow(refusal('belongs to another user'))
    expect(modeOf(`${path}.lock`)).toBe('644')
  })

  it('still takes a regular lock file of this user, with mode 0600', () => {
    writeFileSync(`${path}.lock`, '', { mode: 0o644 })
    StateFile.open(path, seeded).file.close()
    expect(modeOf(`${path}.lock`)).toBe('600')
  })
})
