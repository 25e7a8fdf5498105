import { describe, expect, it, vi } from 'vitest'
import { ChangeLog, type TakenBack } from '../../src/model/change-log.ts'
import { type CollectionName, collectionNames } from '../../src/model/collections.ts'
import { CredentialStore } from '../../src/model/credential-store.ts'
import type { MockState } from '../../src/model/mock-state.ts'

/** A record of these tests: any collection holds it, by its `id`. */
interface Item {
  id: string
  name: string
  tags: string[]
}

/** A log over one store per collection, each keeping records by their `id`. */
function logged() {
  const stores = Object.fromEntries(
    collectionNames.map((name) => [name, new CredentialStore<Item>((r) => r.id)]),
  ) as Record<CollectionName, CredentialStore<Item>>
  const log = new ChangeLog((name) => stores[name])
  const sizes = { recreated: vi.fn(), removed: vi.fn() } satisfies TakenBack
  /** Changes `record` of the users in place, as `db.update` does. */
  const change = (record: Item, fields: Partial<Item>) =>
    log.changeInPlace('users', record as never, fields as Partial<MockState['users'][number]>)
  return { stores, log, sizes, change }
}

const item = (id: string, name = id): Item => ({ id, name, tags: ['t'] })

describe('ChangeLog', () => {
  it('logs what the operation under way creates, removes and changes in place, in order', async () => {
    const { stores, log, change } = logged()
    const [kept, removed] = [item('kept', 'Old'), item('removed')]
    await log.quietly(async () => {
      stores.users.create(kept)
      stores.userGroups.create(removed)
    })
    expect(log.current).toEqual([])
    const created = stores.signInTokens.create(item('created'))
    stores.userGroups.delete(removed)
    const tags = kept.tags
    change(kept, { name: 'New', tags: ['t'] })
    expect(log.current).toEqual([
      { collection: 'signInTokens', op: 'put', record: created, created: true },
      { collection: 'userGroups', op: 'delete', record: removed },
      { collection: 'users', op: 'put', record: kept, before: { name: 'Old' } },
    ])
    // Changed in place, but a field given the value it holds is left as it is.
    expect(kept).toEqual({ id: 'kept', name: 'New', tags: ['t'] })
    expect(kept.tags).toBe(tags)
  })

  it('takes back the operation under way, the latest first, and tells of each record re-created or removed', async () => {
    const { stores, log, sizes, change } = logged()
    const [user, token] = [item('user', 'A'), item('token')]
    await log.quietly(async () => {
      stores.users.create(user)
      stores.signInTokens.create(token)
    })
    change(user, { name: 'B' })
    stores.signInTokens.delete(token)
    const created = stores.signInTokens.create(item('created'))
    change(user, { name: 'C', tags: ['u'] })
    stores.users.delete(user)
    await log.undo(sizes)
    // A record removed comes back as a copy; the changes made before its removal are taken back
    // from that copy.
    const [userBack] = stores.users.all()
    expect(userBack).toEqual(item('user', 'A'))
    expect(userBack).not.toBe(user)
    expect(stores.signInTokens.all()).toEqual([token])
    expect(stores.signInTokens.get('token')).not.toBe(token)
    expect(stores.signInTokens.get('created')).toBeUndefined()
    expect(sizes.recreated.mock.calls).toEqual([
      [user, userBack],
      [token, stores.signInTokens.get('token')],
    ])
    expect(sizes.removed.mock.calls).toEqual([[created]])
    // What the take-back did is no change of its own, and the log starts again empty.
    expect(log.current).toEqual([])
    await log.undo(sizes)
    expect(stores.users.all()).toEqual([userBack])
  })

  it('forgets the changes it accepts, and nothing is taken back of them', async () => {
    const { stores, log, sizes } = logged()
    stores.users.create(item('accepted'))
    log.accept()
    expect(log.current).toEqual([])
    await log.undo(sizes)
    expect(stores.users.all()).toEqual([item('accepted')])
  })

  it('holds operations until confirmed, and takes back every one held with the one under way', async () => {
    const { stores, log, sizes } = logged()
    const created = (id: string) => stores.users.create(item(id))
    const [first, second] = [created('first'), created('second')]
    log.hold()
    const third = created('third')
    log.hold()
    expect(log.current).toEqual([])
    const under = created('under way')
    await log.undoHeld(sizes)
    expect(stores.users.all()).toEqual([])
    expect(sizes.removed.mock.calls).toEqual([[under], [third], [second], [first]])
    // Once confirmed, what was held is final: only what came after is taken back.
    created('confirmed')
    log.hold()
    log.confirm()
    created('after')
    log.hold()
    await log.undoHeld(sizes)
    expect(stores.users.all()).toEqual([item('confirmed')])
  })

  it('logs nothing while a load places its records, and logs again after it, even when it fails', async () => {
    const { stores, log } = logged()
    await expect(
      log.quietly(async () => {
        stores.users.create(item('loaded'))
        throw new Error('a bad record')
      }),
    ).rejects.toThrow('a bad record')
    expect(log.current).toEqual([])
    const next = stores.users.create(item('next'))
    expect(log.current).toEqual([{ collection: 'users', op: 'put', record: next, created: true }])
  })
})
