import {
  appendFileSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { buildDataset, buildUser } from '../fixtures/index.ts'
import type { MockState } from '../src/index.ts'
import { StateFile, StateFileError } from '../src/server/state-file.ts'

let dir = ''
let path = ''
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'state-file-'))
  path = join(dir, 'state.jsonl')
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const seeded = () => buildDataset({ organisations: 1, usersPerOrganisation: 4 }).state

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

  const corruptions: Array<[string, (text: string) => string, RegExp]> = [
    ['a bad line before the last', (t) => `${t}not json\n{"changes":[]}\n`, /line 2 is not JSON/],
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
    expect(readdirSync(dir)).toEqual(['state.jsonl'])
    const reopened = StateFile.open(path, seeded)
    reopened.file.close()
    expect(reopened.state.users.map((u) => u.id)).toEqual(current.users.map((u) => u.id))
  })
})

describe('the state file, regressions', () => {
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
