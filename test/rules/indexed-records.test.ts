import { OperationError } from '@msw/data'
import { describe, expect, it, vi } from 'vitest'
import * as z from 'zod'
import { profileOrNull } from '../../src/api/profile-fields.ts'
import { collectionNames } from '../../src/model/collections.ts'
import { IndexedRecords } from '../../src/model/indexed-records.ts'
import { emptyState, type MockState } from '../../src/model/mock-state.ts'
import type { PartitionedCollection } from '../../src/model/partitioned-collection.ts'
import type { SignInTokenRecord } from '../../src/model/records.ts'

const at = '2026-01-01T12:00:00+00:00'

/** Every kind of record of organisation `orgId`: two users, the first with one of each of its own. */
function organisation(orgId: string): MockState {
  const user = (n: number) => ({
    userId: `${orgId}-user-${n}`,
    orgId,
    id: `u${n}`,
    registrationStatus: 'registered' as const,
    registeredAt: at,
    lastActive: null,
    ...profileOrNull({ firstName: `First ${n}` }),
    userGroups: ['g'],
  })
  const userId = `${orgId}-user-1`
  return {
    ...emptyState(),
    organisations: [{ orgId, name: orgId }],
    apiKeys: [{ keyHash: `${orgId}-key-hash`, orgId }],
    users: [user(1), user(2)],
    userGroups: [{ orgId, groupId: 'g', name: 'Group' }],
    learningPaths: [{ orgId, learningPathId: 'lp', name: 'Path' }],
    learningProgress: [
      {
        userId,
        learningPathId: 'lp',
        startDate: '2026-01-01',
        dueDate: null,
        completedAt: null,
        percentComplete: 0,
      },
    ],
    certificates: [
      { certificateId: `${orgId}-cert`, userId, learningPathId: 'lp', title: 'T', issuedAt: at },
    ],
    signInTokens: [
      {
        tokenHash: `${orgId}-token-hash`,
        userId,
        orgId,
        issuedAt: at,
        expiresAt: '2026-01-01T12:05:00+00:00',
        redeemedAt: null,
      },
    ],
    webViewSessions: [{ sessionHash: `${orgId}-session-hash`, userId, orgId, createdAt: at }],
    organisationStarts: [{ orgId, records: '{}' }],
    organisationSnapshots: [
      { orgId, name: 'saved', createdAt: at, users: 0, bytes: 4, records: '{}', settings: '{}' },
    ],
    organisationShapes: [{ orgId, shapes: null, variedUsers: 0 }],
    userShapes: [{ userId, shapeCase: 'nulls' }],
    organisationLatencies: [{ orgId, latency: '{"fixedMs":5}' }],
    clocks: [{ orgId, mode: 'frozen', at: '2030-01-01T00:00:00.000Z', since: null }],
  }
}

/** Both organisations' records, collection by collection. */
function both(a: MockState, b: MockState): MockState {
  const state = emptyState()
  for (const name of collectionNames) (state[name] as object[]) = [...a[name], ...b[name]]
  return state
}

/** How many records each collection holds. */
const counts = (records: IndexedRecords) =>
  Object.fromEntries(collectionNames.map((name) => [name, records.records()[name].length]))

describe('IndexedRecords', () => {
  it('finds every record it was given by each index, the stored copy and not the object given', async () => {
    const records = new IndexedRecords()
    const given = organisation('acme')
    await records.add(given)
    const [ada] = given.users
    const stored = records.users.get('acme', 'u1')
    expect(stored).toEqual(ada)
    expect(stored).not.toBe(ada)
    expect(stored?.userGroups).not.toBe(ada?.userGroups)
    expect(records.usersByUserId.get('acme-user-1')).toBe(stored)
    expect(records.users.count('acme')).toBe(2)
    expect(records.organisations.get('acme')?.name).toBe('acme')
    expect(records.apiKeys.get('acme-key-hash')?.orgId).toBe('acme')
    expect(records.userGroups.get('acme', 'g')?.name).toBe('Group')
    expect(records.learningPaths.get('acme', 'lp')?.name).toBe('Path')
    expect(records.learningProgress.get('acme-user-1')?.learningPathId).toBe('lp')
    expect(records.certificates.get('acme-user-1').map((c) => c.certificateId)).toEqual([
      'acme-cert',
    ])
    const token = records.signInTokens.get('acme-token-hash')
    expect(token).toEqual(given.signInTokens[0])
    expect(token).not.toBe(given.signInTokens[0])
    expect(records.signInTokensByUserId.get('acme-user-1')).toEqual([token])
    expect(records.signInTokensByExpiry.first('acme')).toEqual({
      ms: Date.parse('2026-01-01T12:05:00Z'),
      record: token,
    })
    // Each organisation's apart: each is swept at its own clock.
    expect(records.signInTokensByExpiry.first('other')).toBeUndefined()
    const session = records.webViewSessions.get('acme-session-hash')
    expect(records.webViewSessionsByUserId.get('acme-user-1')).toEqual([session])
    expect(records.webViewSessionsByStart.first('acme')?.record).toBe(session)
    expect(records.clocks.get('acme')).toEqual(given.clocks[0])
    expect(records.clocks.timeOf('acme', Date.now())).toBe(Date.parse('2030-01-01T00:00:00Z'))
    expect(records.clocks.modeOf('other')).toBe('real')
    expect(records.organisationStarts.get('acme')?.records).toBe('{}')
    expect(records.organisationShapes.get('acme')?.variedUsers).toBe(0)
    expect(records.userShapes.get('acme-user-1')?.shapeCase).toBe('nulls')
  })

  it('validates what it adds: a model record by @msw/data, a credential by its schema', async () => {
    const records = new IndexedRecords()
    const printed = vi.spyOn(console, 'error').mockImplementation(() => {})
    await expect(records.add({ organisations: [{ orgId: '', name: 'No id' }] })).rejects.toThrow(
      OperationError,
    )
    printed.mockRestore()
    const token = organisation('acme').signInTokens[0] as SignInTokenRecord
    await expect(
      records.add({ signInTokens: [{ ...token, expiresAt: 'tomorrow' }] }),
    ).rejects.toThrow(z.ZodError)
    expect(Object.values(counts(records)).every((n) => n === 0)).toBe(true)
  })

  it('lists every record in the table’s order, the stored objects; a snapshot is a copy of them', async () => {
    const records = new IndexedRecords()
    const state = both(organisation('a'), organisation('b'))
    await records.add(state)
    const listed = records.records()
    expect(Object.keys(listed)).toEqual(collectionNames)
    expect(listed).toEqual(state)
    expect(listed.users[0]).toBe(records.users.get('a', 'u1'))
    const snapshot = records.snapshot()
    expect(snapshot).toEqual(state)
    expect(snapshot.users[0]).not.toBe(listed.users[0])
    expect(snapshot.users[0]?.userGroups).not.toBe(listed.users[0]?.userGroups)
  })

  it('removes the records of a user from each collection they belong to, and nothing else', async () => {
    const records = new IndexedRecords()
    await records.add(both(organisation('a'), organisation('b')))
    records.removeRecordsOf('a-user-1')
    expect(records.learningProgress.get('a-user-1')).toBeUndefined()
    expect(records.certificates.get('a-user-1')).toEqual([])
    expect(records.signInTokens.get('a-token-hash')).toBeUndefined()
    expect(records.signInTokensByUserId.get('a-user-1')).toEqual([])
    expect(records.signInTokensByExpiry.first('a')).toBeUndefined()
    expect(records.signInTokensByExpiry.first('b')?.record.userId).toBe('b-user-1')
    expect(records.webViewSessionsByUserId.get('a-user-1')).toEqual([])
    expect(records.userShapes.get('a-user-1')).toBeUndefined()
    // The user itself is the rule's to remove; its organisation's groups stay.
    expect(records.users.get('a', 'u1')).toBeDefined()
    expect(records.userGroups.get('a', 'g')).toBeDefined()
    expect(counts(records)).toEqual({
      organisations: 2,
      apiKeys: 2,
      users: 4,
      userGroups: 2,
      learningPaths: 2,
      learningProgress: 1,
      certificates: 1,
      signInTokens: 1,
      webViewSessions: 1,
      organisationStarts: 2,
      organisationSnapshots: 2,
      organisationShapes: 2,
      userShapes: 1,
      organisationLatencies: 2,
      clocks: 2,
    })
  })

  it('removes an organisation with every record of it, its users’ own included, and no other’s', async () => {
    const records = new IndexedRecords()
    const b = organisation('b')
    await records.add(both(organisation('a'), b))
    records.removeOrganisation('a')
    expect(records.records()).toEqual(b)
    expect(records.organisations.get('a')).toBeUndefined()
    expect(records.usersByUserId.get('a-user-2')).toBeUndefined()
    expect(records.users.count('a')).toBe(0)
    expect(records.apiKeys.get('a-key-hash')).toBeUndefined()
    expect(records.learningProgress.get('a-user-1')).toBeUndefined()
    expect(records.users.get('b', 'u1')).toBeDefined()
  })

  it('reads every record of one organisation but the collections skipped, and removes them but those kept', async () => {
    const records = new IndexedRecords()
    const a = organisation('a')
    await records.add(both(a, organisation('b')))
    const skipped = new Set(['apiKeys', 'organisationSnapshots'] as const)
    expect(records.organisationRecords('a', skipped)).toEqual({
      ...a,
      apiKeys: [],
      organisationSnapshots: [],
    })
    records.removeOrganisation('a', skipped)
    const left = records.organisationRecords('a', new Set())
    expect(left).toEqual({
      ...emptyState(),
      apiKeys: a.apiKeys,
      organisationSnapshots: a.organisationSnapshots,
    })
    expect(records.organisationSnapshots.get('a', 'saved')).toBeDefined()
  })

  it('places parsed records as a load does: indexed at once, the same objects', async () => {
    const records = new IndexedRecords()
    await records.add(organisation('b'))
    const a = organisation('a')
    records.addParsed(a)
    expect(records.organisationRecords('a', new Set())).toEqual(a)
    expect(records.usersByUserId.get('a-user-1')).toBe(a.users[0])
    expect(records.signInTokensByUserId.get('a-user-1')).toEqual(a.signInTokens)
    await records.adopted
    expect(records.collections.users.findFirst((q) => q.where({ userId: 'a-user-2' }))).toBe(
      a.users[1],
    )
  })
})

describe('records placed by a load', () => {
  /** The records, with the load's means in reach: place and adopt. */
  class Loaded extends IndexedRecords {
    load(state: MockState): void {
      for (const name of collectionNames) this.place(name, state[name])
      this.adoptPlaced()
    }
  }

  it('are indexed and listed at once, the same objects, and adopted into @msw/data in the background', async () => {
    const records = new Loaded()
    const state = organisation('acme')
    records.load(state)
    const users = records.collections.users as PartitionedCollection<never>
    expect(users.stagedCount).toBe(2)
    expect(records.users.get('acme', 'u1')).toBe(state.users[0])
    expect(records.signInTokens.get('acme-token-hash')).toBe(state.signInTokens[0])
    expect(records.records()).toEqual(state)
    await records.adopted
    expect(users.stagedCount).toBe(0)
    expect(records.collections.users.all()).toEqual(state.users)
    expect(records.collections.users.all()[1]).toBe(state.users[1])
  })

  it('stay staged once the adoption is stopped', async () => {
    const records = new Loaded()
    records.stopAdoption()
    records.load(organisation('acme'))
    await records.adopted
    expect((records.collections.users as PartitionedCollection<never>).stagedCount).toBe(2)
    expect(records.users.count('acme')).toBe(2)
  })
})
