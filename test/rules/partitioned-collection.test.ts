import { Collection, OperationError, type Query } from '@msw/data'
import { describe, expect, it, vi } from 'vitest'
import * as z from 'zod'
import { GroupIndex, OrgIndex, UniqueIndex } from '../../src/model/indexes.ts'
import {
  adoptStaged,
  PartitionedCollection,
  stageRecords,
} from '../../src/model/partitioned-collection.ts'
import { MockCore } from '../../src/root/advanced.ts'
import { createMockApi } from '../../src/root/index.ts'
import { orgKey } from '../../src/server/state-file.ts'
import { dispatchJson } from '../support/way-in.ts'

const schema = z.strictObject({ n: z.int(), group: z.string(), tags: z.array(z.string()) })
type Item = z.infer<typeof schema>

const items: Item[] = Array.from({ length: 23 }, (_, n) => ({
  n,
  group: ['a', 'b', 'c'][n % 3] as string,
  tags: n % 4 === 0 ? ['x'] : [],
}))

/** The same records in a plain `@msw/data` collection and in one of partitions of 4. */
async function both() {
  const plain = new Collection({ schema })
  const partitioned = new PartitionedCollection({ schema, partitionSize: 4 })
  for (const item of items) {
    await plain.create(item)
    await partitioned.create(item)
  }
  return { plain, partitioned }
}

const plainData = (records: readonly object[]) => records.map((r) => ({ ...r }))

type Stored = ReturnType<Collection<typeof schema>['all']>[number]
type Predicate = (query: Query<Stored>) => Query<unknown>

describe('PartitionedCollection', () => {
  it('spreads records over partitions and reads them back in insertion order', async () => {
    const { plain, partitioned } = await both()
    expect(partitioned).toBeInstanceOf(Collection)
    expect(partitioned.partitionCount).toBe(6)
    expect(partitioned.count()).toBe(plain.count())
    expect(plainData(partitioned.all())).toEqual(plainData(plain.all()))
  })

  it('answers findFirst and findMany, with every pagination and sort option, as @msw/data does', async () => {
    const { plain, partitioned } = await both()
    const cursor = (c: Collection<typeof schema>) => c.findFirst((q) => q.where({ n: 9 }))
    const queries: Array<[Predicate | undefined, object | undefined]> = [
      [undefined, undefined],
      [(q) => q.where({ group: 'b' }), undefined],
      [(q) => q.where({ n: (n: number) => n > 5 }), { take: 4 }],
      [(q) => q.where({ group: 'a' }), { take: -3 }],
      [(q) => q.where({ group: 'c' }), { skip: 2, take: 2 }],
      [undefined, { take: 0 }],
      [(q) => q.where({ tags: (t: string[]) => t.length > 0 }), { orderBy: { n: 'desc' } }],
      [undefined, { orderBy: [{ group: 'asc' }, { n: 'desc' }] }],
      [(q) => q.where({ group: 'zzz' }), undefined],
    ]
    for (const [predicate, options] of queries) {
      const expected = plainData(plain.findMany(predicate as never, options as never))
      expect(plainData(partitioned.findMany(predicate as never, options as never))).toEqual(
        expected,
      )
      expect({ ...partitioned.findFirst(predicate as never) }).toEqual({
        ...plain.findFirst(predicate as never),
      })
    }
    const fromCursor = (c: Collection<typeof schema>) =>
      plainData(c.findMany(undefined, { cursor: cursor(c), take: 5 }))
    expect(fromCursor(partitioned)).toEqual(fromCursor(plain))
  })

  it('raises @msw/data’s own errors for strict queries without results and a bad skip', async () => {
    const { plain, partitioned } = await both()
    const none: Predicate = (q) => q.where({ group: 'none' })
    for (const c of [plain, partitioned]) {
      expect(() => c.findFirst(none as never, { strict: true })).toThrow(OperationError)
      expect(() => c.findMany(none as never, { strict: true })).toThrow(OperationError)
      expect(() => c.delete(none as never, { strict: true })).toThrow(OperationError)
      expect(() => c.deleteMany(none as never, { strict: true })).toThrow(OperationError)
      await expect(c.update(none as never, { data() {}, strict: true })).rejects.toThrow(
        OperationError,
      )
      expect(() => c.findMany(undefined, { skip: -1 })).toThrow()
    }
    const message = (f: () => unknown) => {
      try {
        f()
      } catch (error) {
        return (error as Error).message
      }
    }
    expect(message(() => partitioned.findMany(none as never, { strict: true }))).toBe(
      message(() => plain.findMany(none as never, { strict: true })),
    )
    expect(message(() => partitioned.delete(none as never, { strict: true }))).toBe(
      message(() => plain.delete(none as never, { strict: true })),
    )
  })

  it('deletes, updates and keeps its indexes exact, dropping partitions it empties', async () => {
    const { plain, partitioned } = await both()
    const byN = new UniqueIndex(partitioned as never, (r: Item) => String(r.n))
    const byGroup = new GroupIndex(partitioned as never, (r: Item) => r.group)
    for (const item of items) await partitioned.create({ ...item, n: item.n + 100 })
    expect(byN.size).toBe(23)
    for (const c of [plain, partitioned]) {
      c.deleteMany((q) => q.where({ n: (n: number) => n >= 4 && n < 12 }))
      c.delete((q) => q.where({ n: 1 }))
      const two = c.findFirst((q) => q.where({ n: 2 }))
      if (two) c.delete(two)
      await c.update((q) => q.where({ n: 3 }), {
        data(draft) {
          draft.group = 'updated'
        },
      })
      await c.updateMany((q) => q.where({ group: 'c' }), {
        data(draft) {
          draft.tags.push('y')
        },
      })
    }
    const kept = partitioned.all().filter((r) => r.n < 100)
    expect(plainData(kept)).toEqual(plainData(plain.all()))
    expect(partitioned.count()).toBe(plain.count() + 23)
    expect(partitioned.partitionCount).toBe(10)
    expect(byN.get('5')).toBeUndefined()
    expect(byN.get('3')).toBe(partitioned.findFirst((q) => q.where({ n: 3 })))
    expect(byN.get('3')?.group).toBe('updated')
    expect(byGroup.get('updated').map((r) => r.n)).toEqual([3])
    expect(byGroup.get('a').every((r) => r.group === 'a')).toBe(true)
    partitioned.clear()
    expect(partitioned.count()).toBe(0)
    expect(partitioned.all()).toEqual([])
    expect(byN.size).toBe(0)
  })

  it('keeps an index by organisation and id exact through creates, deletes and updates', async () => {
    const members = new PartitionedCollection({
      schema: z.strictObject({ orgId: z.string(), id: z.string() }),
      partitionSize: 2,
    })
    const byOrg = new OrgIndex(members as never, (r: { orgId: string; id: string }) => r.id)
    for (const [orgId, id] of [
      ['a', '1'],
      ['a', '2'],
      ['b', '1'],
      ['a:b', '1'],
    ]) {
      await members.create({ orgId: orgId as string, id: id as string })
    }
    expect([byOrg.size, byOrg.count('a'), byOrg.count('b'), byOrg.count('c')]).toEqual([4, 2, 1, 0])
    expect(byOrg.get('b', '1')).toBe(members.findFirst((q) => q.where({ orgId: 'b', id: '1' })))
    expect(byOrg.get('a', 'b:1')).toBeUndefined()
    members.delete((q) => q.where({ orgId: 'b' }))
    expect([byOrg.size, byOrg.count('b'), byOrg.get('b', '1')]).toEqual([3, 0, undefined])
    await members.update((q) => q.where({ orgId: 'a', id: '2' }), {
      data(draft) {
        draft.id = '3'
      },
    })
    expect([byOrg.get('a', '2'), byOrg.get('a', '3')?.id, byOrg.size]).toEqual([undefined, '3', 3])
  })

  it('reports every partition to one hooks emitter, and respects a prevented delete', async () => {
    const partitioned = new PartitionedCollection({ schema, partitionSize: 2 })
    const byN = new UniqueIndex(partitioned as never, (r: Item) => String(r.n))
    const created: number[] = []
    partitioned.hooks.on('create', (event) => {
      created.push(event.data.record.n)
    })
    partitioned.hooks.on('delete', (event) => {
      if (event.data.deletedRecord.n === 4) event.preventDefault()
    })
    for (const item of items.slice(0, 6)) await partitioned.create(item)
    expect(created).toEqual([0, 1, 2, 3, 4, 5])
    partitioned.delete((q) => q.where({ n: 4 }))
    expect(partitioned.count()).toBe(6)
    expect(byN.get('4')?.n).toBe(4)
    partitioned.delete((q) => q.where({ n: 5 }))
    expect(partitioned.count()).toBe(5)
  })

  it('validates what a consumer creates, and refuses relations', async () => {
    const partitioned = new PartitionedCollection({ schema })
    const printed = vi.spyOn(console, 'error').mockImplementation(() => {})
    await expect(partitioned.create({ n: 'one' } as never)).rejects.toThrow(OperationError)
    expect(printed).toHaveBeenCalled() // @msw/data prints the issues
    printed.mockRestore()
    expect(() => partitioned.defineRelations()).toThrow(/not supported/)
  })
})

describe('staged records (a large load)', () => {
  /** A collection of partitions of 4 whose 23 records are staged, indexed by `n`. */
  function staged() {
    const partitioned = new PartitionedCollection({ schema, partitionSize: 4 })
    const byN = new UniqueIndex(partitioned as never, (r: Item) => String(r.n))
    const records = items.map((item) => schema.parse(item))
    stageRecords(partitioned, records)
    return { partitioned, byN, records }
  }

  it('reads, counts and queries staged records as adopted ones, the same objects', async () => {
    const { plain } = await both()
    const { partitioned, byN, records } = staged()
    expect(partitioned.stagedCount).toBe(23)
    expect(partitioned.count()).toBe(23)
    expect(partitioned.partitionCount).toBe(6)
    expect(byN.get('9')).toBe(records[9])
    expect(partitioned.all()).toEqual(records)
    const some: Predicate = (q) => q.where({ group: 'b' })
    expect(plainData(partitioned.findMany(some as never, { take: -2 }))).toEqual(
      plainData(plain.findMany(some as never, { take: -2 })),
    )
    expect(partitioned.findFirst((q) => q.where({ n: 13 }))).toBe(records[13])
  })

  it('adopts every record into @msw/data as the same object, without a create hook', async () => {
    const { partitioned, byN, records } = staged()
    const created = vi.fn()
    partitioned.hooks.on('create', created)
    await adoptStaged(partitioned, new AbortController().signal)
    expect(partitioned.stagedCount).toBe(0)
    expect(created).not.toHaveBeenCalled()
    const all = partitioned.all()
    all.forEach((record, i) => {
      expect(record).toBe(records[i])
    })
    expect(byN.get('22')).toBe(all[22])
    // Adopted: `@msw/data` itself now updates and deletes them, and the hooks hear of it.
    const deleted = vi.fn()
    partitioned.hooks.on('delete', deleted)
    partitioned.delete(records[4] as Stored)
    expect(deleted).toHaveBeenCalledTimes(1)
    const next = await partitioned.update(records[5] as Stored, {
      data(draft) {
        draft.group = 'updated'
      },
    })
    expect(byN.get('5')).toBe(next)
    expect(partitioned.count()).toBe(22)
  })

  it('deletes a staged record, and adopts its partition before an update', async () => {
    const { partitioned, byN, records } = staged()
    partitioned.delete((q) => q.where({ n: 2 }))
    partitioned.deleteMany((q) => q.where({ n: (n: number) => n >= 4 && n < 8 }))
    expect(partitioned.count()).toBe(18)
    expect(byN.get('2')).toBeUndefined()
    expect(partitioned.partitionCount).toBe(5)
    const next = await partitioned.update((q) => q.where({ n: 9 }), {
      data(draft) {
        draft.tags.push('y')
      },
    })
    expect(next?.tags).toEqual(['y'])
    expect(byN.get('9')).toBe(next)
    expect(partitioned.stagedCount).toBe(14)
    await adoptStaged(partitioned, new AbortController().signal)
    expect(partitioned.all().map((r) => r.n)).toEqual(
      items.map((i) => i.n).filter((n) => n !== 2 && (n < 4 || n >= 8)),
    )
    expect(partitioned.findFirst((q) => q.where({ n: 10 }))).toBe(records[10])
  })

  it('stops adopting when its signal aborts, and clears staged records', async () => {
    const { partitioned, byN } = staged()
    const stop = new AbortController()
    stop.abort()
    await adoptStaged(partitioned, stop.signal)
    expect(partitioned.stagedCount).toBe(23)
    partitioned.clear()
    expect(partitioned.count()).toBe(0)
    expect(partitioned.all()).toEqual([])
    expect(byN.size).toBe(0)
  })
})

describe('the model of a mock', () => {
  it('is @msw/data collections a consumer reads with the query API, indexed whatever the size', async () => {
    const api = createMockApi({
      seededOrganisations: 0,
      organisations: [{ orgId: 'X', apiKeys: ['K'], users: 2600 }],
    })
    await api.ready
    const { users } = api.db
    expect(users).toBeInstanceOf(Collection)
    expect(users.count()).toBe(2600)
    expect((users as PartitionedCollection<never>).partitionCount).toBe(3)
    expect(users.findMany((q) => q.where({ registrationStatus: 'archived' }))).toHaveLength(650)
    const last = users.all().at(-1)
    if (!last) throw new Error('no users')
    const deleted = await dispatchJson(api, 'DELETE', `/api/v1/users/X/${last.id}`, { key: 'K' })
    expect(deleted.status).toBe(200)
    expect(users.count()).toBe(2599)
    expect(users.findFirst((q) => q.where({ id: last.id }))).toBeUndefined()
  })

  it('answers once indexed, and once ready holds the same objects, every one in @msw/data', async () => {
    const core = new MockCore({
      seededOrganisations: 0,
      organisations: [{ orgId: 'X', apiKeys: ['K'], users: 5000 }],
    })
    await core.serving
    const users = core.db.users as PartitionedCollection<never>
    expect(users.stagedCount).toBeGreaterThan(0)
    const during = core.db.users.all()
    const created = vi.fn()
    core.db.users.hooks.on('create', created)
    // Identify changes the record the index finds, in place, while it is still staged.
    const first = during[0]
    if (!first) throw new Error('no users')
    const lastActive = first.lastActive
    const answer = await dispatchJson(core, 'POST', '/api/v1/users/identify', {
      key: 'K',
      body: { id: first.id, orgId: 'X' },
    })
    expect(answer.status).toBe(200)
    await core.ready
    expect(users.stagedCount).toBe(0)
    expect(created).not.toHaveBeenCalled()
    const after = core.db.users.all()
    expect(after).toHaveLength(5000)
    expect(after.every((record, i) => record === during[i])).toBe(true)
    const adopted = core.db.users.findFirst((q) => q.where({ id: first.id }))
    expect(adopted?.lastActive).not.toBe(lastActive)
  })

  it('follows records a consumer updates with @msw/data’s update', async () => {
    const api = createMockApi({ organisations: [{ orgId: 'acme', apiKeys: ['k'], users: 2 }] })
    await api.ready
    const before = api.db.users.findFirst((q) => q.where({ orgId: 'acme' }))
    if (!before) throw new Error('no user')
    await api.db.users.update(before, {
      data(user) {
        user.firstName = 'Updated'
      },
    })
    const answer = await dispatchJson(api, 'POST', '/api/v1/users/identify', {
      key: 'k',
      body: { id: before.id, orgId: 'acme' },
    })
    expect(answer.body.data).toMatchObject({ userId: before.userId, firstName: 'Updated' })
  })

  it('keeps organisations apart whatever characters their ids and user ids hold', async () => {
    expect(orgKey('a', 'b:c')).not.toBe(orgKey('a:b', 'c'))
    expect(orgKey('a', 'b\u0000c')).not.toBe(orgKey('a\u0000b', 'c'))
    const api = createMockApi({
      seededOrganisations: 0,
      organisations: [
        { orgId: 'a', apiKeys: ['key-a'], users: 0 },
        { orgId: 'a\u0000b', apiKeys: ['key-ab'], users: 0 },
      ],
    })
    const first = await dispatchJson(api, 'POST', '/api/v1/users/identify', {
      key: 'key-ab',
      body: { id: 'c', orgId: 'a\u0000b', data: { firstName: 'In a-b' } },
    })
    const second = await dispatchJson(api, 'POST', '/api/v1/users/identify', {
      key: 'key-a',
      body: { id: 'b\u0000c', orgId: 'a', data: { firstName: 'In a' } },
    })
    expect(second.body.data.userId).not.toBe(first.body.data.userId)
    expect(second.body.data.firstName).toBe('In a')
    expect((await api.state()).users).toHaveLength(2)
  })
})
