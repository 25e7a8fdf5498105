import { describe, expect, it } from 'vitest'
import type { StateStore } from '../../src/core/mock-core.ts'
import { MockCore } from '../../src/root/advanced.ts'
import type { MockState } from '../../src/root/index.ts'
import { dispatchJson, stateJsonSize } from '../support/way-in.ts'

const key = 'group-key'
const options = { seededOrganisations: 0, organisations: [{ orgId: 'acme', apiKeys: [key] }] }

/**
 * A store that keeps the user ids each group commit wrote, one list an operation, and fails the
 * next group when told to.
 */
function groupStore() {
  const groups: string[][][] = []
  let failures = 0
  const store: StateStore = {
    open: (seeded) => seeded(),
    commit: () => {
      throw new Error('the group commit is not used')
    },
    commitGroup(operations) {
      if (failures > 0) {
        failures--
        throw new Error('disk full')
      }
      groups.push(
        operations.map((writes) =>
          writes.flatMap((w) =>
            w.collection === 'users' && 'id' in w.record ? [String(w.record.id)] : [],
          ),
        ),
      )
    },
    replace: () => undefined,
  }
  return { store, groups, failNext: () => void failures++ }
}

const identify = (core: MockCore, id: string, firstName = 'Ada') =>
  dispatchJson(core, 'POST', '/api/v1/users/identify', {
    key,
    body: { id, orgId: 'acme', data: { firstName } },
  })

const ids = (count: number, prefix: string) =>
  Array.from({ length: count }, (_, i) => `${prefix}-${i}`)

/** The users of organisation acme, by id, with their first names. */
async function namesOf(core: MockCore): Promise<Map<string, string | null>> {
  const state: MockState = await core.state()
  return new Map(state.users.filter((u) => u.orgId === 'acme').map((u) => [u.id, u.firstName]))
}

describe('group commit', () => {
  it('commits calls that arrive together in one group, each answered once it is committed', async () => {
    const { store, groups } = groupStore()
    const core = new MockCore(options, store)
    await core.ready
    const called = ids(40, 'together')
    const committedWhenAnswered: boolean[] = []
    const answers = await Promise.all(
      called.map(async (id) => {
        const answer = await identify(core, id)
        committedWhenAnswered.push(groups.flat(2).includes(id))
        return answer
      }),
    )
    expect(answers.map((a) => a.status)).toEqual(called.map(() => 200))
    expect(committedWhenAnswered).toEqual(called.map(() => true))
    // Every call in exactly one committed group, in the order the calls ran.
    expect(groups.flat(2)).toEqual(called)
    // Fewer commits than calls: one commit a call would give 40 groups of one.
    expect(groups.length).toBeLessThan(called.length / 4)
    expect(Math.max(...groups.map((g) => g.length))).toBeGreaterThan(1)
  })

  it('commits a call alone at once, and at most 64 calls in one group', async () => {
    const { store, groups } = groupStore()
    const core = new MockCore(options, store)
    await core.ready
    expect((await identify(core, 'alone')).status).toBe(200)
    expect(groups).toEqual([[['alone']]])
    await Promise.all(ids(150, 'many').map((id) => identify(core, id)))
    expect(groups.flat(2)).toHaveLength(151)
    expect(Math.max(...groups.map((g) => g.length))).toBe(64)
  })

  it('answers 500 to every call of a group whose commit fails, keeps none of them, and goes on', async () => {
    const { store, groups, failNext } = groupStore()
    const core = new MockCore(options, store)
    await core.ready
    // Changed, then changed again by the failed group: it must come back as it was.
    expect((await identify(core, 'kept', 'Before')).status).toBe(200)
    const before = await core.state()
    const bytes = core.stateBytes
    const kept = groups.length
    failNext()
    const failed = [...ids(10, 'lost'), 'kept', ...ids(10, 'lost-again'), 'kept']
    const answers = await Promise.all(failed.map((id, i) => identify(core, id, `Failed-${i}`)))
    for (const answer of answers) {
      expect(answer).toMatchObject({
        status: 500,
        body: { code: 500, message: 'Internal server error' },
      })
    }
    expect(groups).toHaveLength(kept)
    expect(await core.state()).toEqual(before)
    expect(core.stateBytes).toBe(bytes)
    // The calls after it are kept.
    const after = await Promise.all(ids(5, 'after').map((id) => identify(core, id)))
    expect(after.map((a) => a.status)).toEqual([200, 200, 200, 200, 200])
    expect([...(await namesOf(core)).keys()].sort()).toEqual(
      [...before.users.map((u) => u.id), ...ids(5, 'after')].sort(),
    )
    expect((await namesOf(core)).get('kept')).toBe('Before')
  })

  it('counts the records loaded at the start exactly after a failed group changed them', async () => {
    const { store, failNext } = groupStore()
    const core = new MockCore(
      { ...options, organisations: [{ orgId: 'acme', apiKeys: [key], users: 3 }] },
      store,
    )
    await core.ready
    const jsonSize = async () => stateJsonSize(await core.state())
    const [changed, deleted] = (await core.state()).users.map((u) => u.id)
    if (!changed || !deleted) throw new Error('three users seeded')
    const remove = (id: string) => dispatchJson(core, 'DELETE', `/api/v1/users/acme/${id}`, { key })
    failNext()
    const failed = await Promise.all([
      identify(core, changed, 'Lost'),
      remove(deleted),
      identify(core, changed, 'Lost "again"'),
    ])
    expect(failed.map((a) => a.status)).toEqual([500, 500, 500])
    expect(core.stateBytes).toBe(await jsonSize())
    for (const answer of [await identify(core, changed, 'Kept'), await remove(deleted)]) {
      expect(answer.status).toBe(200)
      expect(core.stateBytes).toBe(await jsonSize())
    }
    expect((await remove(changed)).status).toBe(200)
    expect(core.stateBytes).toBe(await jsonSize())
  })

  it('commits the open group before a reset, a transaction or a read of the state', async () => {
    const { store, groups } = groupStore()
    const core = new MockCore(options, store)
    await core.ready
    const calls = ids(3, 'open').map((id) => identify(core, id))
    // Queued behind the calls: it sees them committed, not merely run.
    const seen = await core.transact(() => groups.flat(2))
    expect(seen).toEqual(ids(3, 'open'))
    await Promise.all(calls)
    const read = ids(3, 'read').map((id) => identify(core, id))
    await core.state()
    expect(groups.flat(2)).toEqual([...ids(3, 'open'), ...ids(3, 'read')])
    await Promise.all(read)
    const reset = identify(core, 'before-reset')
    await core.reset()
    expect(groups.flat(2).at(-1)).toBe('before-reset')
    expect((await reset).status).toBe(200)
  })
})
