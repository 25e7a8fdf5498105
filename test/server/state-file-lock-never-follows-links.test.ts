import {
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { buildDataset } from '../../fixtures/index.ts'
import { StateFile, StateFileError } from '../../src/server/state-file.ts'

let dir = ''
let path = ''
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'state-file-lock-link-'))
  path = join(dir, 'state.jsonl')
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const seeded = () => buildDataset({ organisations: 1, usersPerOrganisation: 2 }).state
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
