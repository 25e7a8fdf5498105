import fs, { mkdtempSync, rmSync } from 'node:fs'
import { syncBuiltinESMExports } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { StateStore } from '../../src/core/mock-core.ts'
import type { StateChange } from '../../src/model/database.ts'
import { MockCore } from '../../src/root/advanced.ts'
import type { MockState } from '../../src/root/index.ts'
import { createStateFileStore } from '../../src/server/state-store.ts'
import { dispatchJson } from '../support/way-in.ts'

const key = 'store-key'
const options = { seededOrganisations: 0, organisations: [{ orgId: 'acme', apiKeys: [key] }] }

/** A store that keeps each commit's changes as `collection op key`, and fails when told to. */
function recordingStore() {
  const commits: string[][] = []
  const replaced: MockState[] = []
  let failures = 0
  const store: StateStore = {
    open: (seeded) => seeded,
    commit(changes: readonly StateChange[]) {
      if (failures > 0) {
        failures--
        throw new Error('disk full')
      }
      commits.push(
        changes.map((c) => `${c.collection} ${c.op} ${'id' in c.record ? c.record.id : ''}`),
      )
    },
    replace: (state) => void replaced.push(state),
  }
  return { store, commits, replaced, failNext: () => void failures++ }
}

const identify = (core: MockCore, id: string) =>
  dispatchJson(core, 'POST', '/api/v1/users/identify', { key, body: { id, orgId: 'acme' } })

describe('a mock with a state store', () => {
  it('commits each operation’s changes before answering, and nothing for a refusal', async () => {
    const { store, commits } = recordingStore()
    const core = new MockCore(options, store)
    await core.ready
    expect(commits).toEqual([])
    expect((await identify(core, 'u-1')).status).toBe(200)
    expect((await identify(core, 'u-1')).status).toBe(200)
    expect((await dispatchJson(core, 'DELETE', '/api/v1/users/acme/nobody', { key })).status).toBe(
      404,
    )
    expect((await dispatchJson(core, 'DELETE', '/api/v1/users/acme/u-1', { key })).status).toBe(200)
    expect(commits).toEqual([
      ['users put u-1', 'signInTokens put '],
      ['users put u-1', 'signInTokens put '],
      ['signInTokens delete ', 'signInTokens delete ', 'users delete u-1'],
    ])
  })

  it('answers 500 when the store fails, and offers the same changes again with the next', async () => {
    const { store, commits, failNext } = recordingStore()
    const core = new MockCore(options, store)
    failNext()
    const failed = await identify(core, 'u-1')
    expect(failed).toMatchObject({
      status: 500,
      body: { code: 500, message: 'Internal server error' },
    })
    expect((await identify(core, 'u-2')).status).toBe(200)
    expect(commits).toEqual([
      ['users put u-1', 'signInTokens put ', 'users put u-2', 'signInTokens put '],
    ])
  })

  it('hands the store the seeded state on reset, and starts from what it opens', async () => {
    const { store, replaced } = recordingStore()
    const opened = new MockCore(options, {
      ...store,
      open: (seeded) => ({
        state: { ...seeded.state, users: [] },
        credentials: [{ orgId: 'acme', name: 'Acme', apiKeys: [] }],
      }),
    })
    expect((await opened.state()).users).toEqual([])
    expect(opened.credentials).toEqual([{ orgId: 'acme', name: 'Acme', apiKeys: [] }])
    await opened.reset()
    expect(replaced).toHaveLength(1)
    expect(replaced[0]?.users).toHaveLength(8)
    expect((await opened.state()).users).toHaveLength(8)
    expect(opened.credentials[0]?.apiKeys).toEqual([key])
  })

  it('keeps the records as they were when the store cannot take a reset', async () => {
    const { store } = recordingStore()
    const core = new MockCore(options, {
      ...store,
      replace: () => {
        throw new Error('disk full')
      },
    })
    expect((await identify(core, 'kept')).status).toBe(200)
    await expect(core.reset()).rejects.toThrow('disk full')
    expect((await core.state()).users.map((u) => u.id)).toContain('kept')
  })
})

describe('the state file store', () => {
  afterEach(() => {
    vi.restoreAllMocks()
    syncBuiltinESMExports()
  })

  it('says in one line why a call answered 500 when the file cannot take its change', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'state-store-'))
    const warnings: string[] = []
    const store = createStateFileStore(join(dir, 'state.jsonl'), (m) => warnings.push(m))
    const core = new MockCore(options, store)
    try {
      await core.ready
      vi.spyOn(fs, 'fsyncSync').mockImplementationOnce(() => {
        throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' })
      })
      syncBuiltinESMExports()
      expect((await identify(core, 'u-1')).status).toBe(500)
      expect(warnings).toEqual([
        expect.stringMatching(
          /^could not write to .*state\.jsonl \(ENOSPC: no space left on device\): the call answers 500, and its change is written with the next one$/,
        ),
      ])
      expect((await identify(core, 'u-2')).status).toBe(200)
    } finally {
      store.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
