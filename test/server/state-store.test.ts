import { describe, expect, it, vi } from 'vitest'
import type { StateStore } from '../../src/core/mock-core.ts'
import { MockCore } from '../../src/root/advanced.ts'
import type { MockState } from '../../src/root/index.ts'
import { dispatchJson } from '../support/way-in.ts'

const key = 'store-key'
const options = { seededOrganisations: 0, organisations: [{ orgId: 'acme', apiKeys: [key] }] }

/** A store that keeps each commit's changes as `collection op key`, and fails when told to. */
function recordingStore() {
  const commits: string[][] = []
  const replaced: MockState[] = []
  let failures = 0
  const store: StateStore = {
    open: (seeded) => seeded(),
    commit(writes) {
      if (failures > 0) {
        failures--
        throw new Error('disk full')
      }
      commits.push(
        writes.map(
          (w) =>
            `${w.collection} ${w.json === null ? 'delete' : 'put'} ${'id' in w.record ? w.record.id : ''}`,
        ),
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

  it('answers 500 when the store fails, and takes the change back in memory too', async () => {
    const { store, commits, failNext } = recordingStore()
    const core = new MockCore(options, store)
    const named = (id: string, firstName: string) =>
      dispatchJson(core, 'POST', '/api/v1/users/identify', {
        key,
        body: { id, orgId: 'acme', data: { firstName, userGroups: [`g-${firstName}`] } },
      })
    expect((await named('kept', 'Ada')).status).toBe(200)
    const before = await core.state()
    failNext()
    expect(await identify(core, 'u-1')).toMatchObject({
      status: 500,
      body: { code: 500, message: 'Internal server error' },
    })
    failNext()
    expect((await named('kept', 'Grace')).status).toBe(500)
    expect(await core.state()).toEqual(before)
    expect((await identify(core, 'u-2')).status).toBe(200)
    expect(commits.slice(1)).toEqual([['users put u-2', 'signInTokens put ']])
  })

  it('takes back what a failing transaction changed, and writes none of it', async () => {
    const { store, commits } = recordingStore()
    const core = new MockCore(options, store)
    const before = await core.state()
    const [user] = before.users
    await expect(
      core.transact(async (ctx) => {
        const stored = ctx.db.usersByUserId.get(user?.userId ?? '')
        if (!stored) throw new Error('no user')
        ctx.db.update('users', stored, { firstName: 'Changed' })
        ctx.db.removeRecordsOf(user?.userId ?? '')
        throw new Error('inspector failed')
      }),
    ).rejects.toThrow('inspector failed')
    // The same records (one removed and taken back comes last in its collection's order).
    const sorted = (state: MockState) =>
      Object.values(state).map((records: object[]) => records.map((r) => JSON.stringify(r)).sort())
    expect(sorted(await core.state())).toEqual(sorted(before))
    expect(commits).toEqual([])
  })

  it('refuses, with 500 and one line, a call that would take the state past maxStateBytes', async () => {
    const warn = vi.spyOn(console, 'error').mockImplementation(() => {})
    const { store, commits } = recordingStore()
    const core = new MockCore({ ...options, maxStateBytes: 20_000 }, store)
    await core.ready
    const firstName = 'x'.repeat(1000)
    let answer = await identify(core, 'first')
    for (let i = 0; answer.status === 200; i++) {
      answer = await dispatchJson(core, 'POST', '/api/v1/users/identify', {
        key,
        body: { id: `big-${i}`, orgId: 'acme', data: { firstName } },
      })
    }
    expect(answer).toMatchObject({
      status: 500,
      body: { code: 500, message: 'Internal server error' },
    })
    const kept = commits.length
    const before = await core.state()
    expect(JSON.stringify(before).length).toBeLessThanOrEqual(20_000)
    expect(JSON.stringify(before).length).toBeGreaterThan(18_000)
    // Shrinking still works, and a call that keeps the size is not refused.
    expect((await dispatchJson(core, 'DELETE', '/api/v1/users/acme/big-0', { key })).status).toBe(
      200,
    )
    expect(commits).toHaveLength(kept + 1)
    expect(warn).toHaveBeenCalledWith(
      expect.stringMatching(
        /^identify-api-mock: a call was refused: it would take the state to \d+ characters of JSON, past its limit of 20000 \(raise it with maxStateBytes or --max-state-bytes\)$/,
      ),
    )
    warn.mockRestore()
  })

  it('hands the store the seeded state on reset, and starts from what it opens', async () => {
    const { store, replaced } = recordingStore()
    const opened = new MockCore(options, {
      ...store,
      open: (seeded) => ({
        state: { ...seeded().state, users: [] },
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
