import { describe, expect, it } from 'vitest'
import type { Change } from '../../src/model/change-log.ts'
import { SizeLedger } from '../../src/model/size-ledger.ts'

/** A record of these tests (the ledger measures any object by its JSON). */
type Item = { id: string; name: string | null; tags: string[] }

const item = (id: string, name: string | null = id): Item => ({ id, name, tags: ['t'] })
const jsonSize = (...records: object[]) =>
  records.reduce((sum, record) => sum + JSON.stringify(record).length, 0)

// Changes as the change log gives them: a record created, removed, or changed in place.
const created = (record: Item) => ({ collection: 'users', op: 'put', record, created: true })
const removed = (record: Item) => ({ collection: 'users', op: 'delete', record })
const changed = (record: Item, before: Partial<Item>) => ({
  collection: 'users',
  op: 'put',
  record,
  before,
})
const asChanges = (...changes: object[]) => changes as Change[]

/** Changes `record` in place as `db.update` does: measured before, then its fields replaced. */
function change(sizes: SizeLedger, record: Item, fields: Partial<Item>): object {
  sizes.measureBeforeChange(record)
  const before = Object.fromEntries(Object.keys(fields).map((k) => [k, record[k as keyof Item]]))
  Object.assign(record, fields)
  return changed(record, before)
}

/** A ledger that a load gave `records`. */
function loadedWith(...records: Item[]): SizeLedger {
  const sizes = new SizeLedger()
  for (const record of records) sizes.loaded(record)
  return sizes
}

describe('SizeLedger', () => {
  it('adds up what a load places, and measures an operation’s changes with the JSON each write stores', () => {
    const [kept, gone] = [item('kept', 'Old'), item('gone')]
    const sizes = loadedWith(kept, gone)
    expect(sizes.bytes).toBe(jsonSize(kept, gone))
    const fresh = item('fresh')
    const changes = asChanges(created(fresh), removed(gone), change(sizes, kept, { name: 'New' }))
    const pending = sizes.measure(changes)
    expect(pending.writes).toEqual([
      { collection: 'users', record: fresh, json: JSON.stringify(fresh) },
      { collection: 'users', record: gone, json: null },
      { collection: 'users', record: kept, json: JSON.stringify(kept) },
    ])
    expect(pending.bytes).toBe(jsonSize(kept, fresh))
    expect(pending.sizes).toEqual(
      new Map<object, number>([
        [fresh, jsonSize(fresh)],
        [gone, 0],
        [kept, jsonSize(kept)],
      ]),
    )
    // Measured, not kept: the state's size moves only once they are accepted.
    expect(sizes.bytes).toBe(jsonSize(item('kept', 'Old'), gone))
    sizes.accept(pending)
    expect(sizes.bytes).toBe(jsonSize(kept, fresh))
  })

  it('measures a loaded record as it was before its first change, however long ago it was loaded', () => {
    const record = item('r', 'short')
    const other = item('other')
    const sizes = loadedWith(record, other)
    const first = change(sizes, record, { name: 'a much longer name' })
    sizes.accept(sizes.measure(asChanges(first)))
    expect(sizes.bytes).toBe(jsonSize(record, other))
    // A loaded record removed is taken out at the size it has.
    sizes.accept(sizes.measure(asChanges(removed(other))))
    expect(sizes.bytes).toBe(jsonSize(record))
  })

  it('without writes, measures a change in place by the fields it changed, exactly', () => {
    const record = item('r', null)
    const sizes = loadedWith(record)
    const steps: Partial<Item>[] = [
      { name: 'A "quoted"\\ name\n' },
      { name: '😀\u0001\u2028', tags: [] },
      { name: null, tags: ['g1', 'g2'] },
      { name: 'same', tags: ['g1', 'g2'] },
    ]
    for (const fields of steps) {
      const pending = sizes.measure(asChanges(change(sizes, record, fields)), false)
      expect(pending.writes).toEqual([])
      expect({ fields, bytes: pending.bytes }).toEqual({ fields, bytes: jsonSize(record) })
      sizes.accept(pending)
    }
    // Changed twice in one operation, or in a field its JSON did not hold: measured whole.
    const twice = asChanges(
      change(sizes, record, { name: 'one' }),
      change(sizes, record, { name: 'two' }),
    )
    expect(sizes.measure(twice, false).bytes).toBe(jsonSize(record))
    const added = change(sizes, record, { extra: 'x' } as Partial<Item>)
    expect(sizes.measure(asChanges(added), false).bytes).toBe(jsonSize(record))
  })

  it('holds operations until confirmed, and restores the sizes from before the first of them', () => {
    const record = item('r', 'before')
    const sizes = loadedWith(record)
    const start = sizes.bytes
    const extra = item('extra')
    sizes.hold(sizes.measure(asChanges(created(extra))))
    sizes.hold(sizes.measure(asChanges(change(sizes, record, { name: 'held, and longer' }))))
    expect(sizes.bytes).toBe(jsonSize(record, extra))
    sizes.undoHeld()
    sizes.removed(extra)
    expect(sizes.bytes).toBe(start)
    // The record is taken back (by the change log); its size is the one it had before.
    Object.assign(record, { name: 'before' })
    const next = sizes.measure(asChanges(change(sizes, record, { name: 'next' })))
    expect(next.bytes).toBe(jsonSize(record))
    sizes.accept(next)
    // Once confirmed, what was held is final: nothing is restored.
    sizes.hold(sizes.measure(asChanges(created(extra))))
    sizes.confirm()
    sizes.undoHeld()
    expect(sizes.bytes).toBe(jsonSize(record, extra))
  })

  it('gives a record taken back after its removal the size its old object had', () => {
    const record = item('r')
    const sizes = loadedWith()
    sizes.accept(sizes.measure(asChanges(created(record))))
    // Changed where no change is logged: only the size kept for it says what the state holds.
    record.name = 'changed unseen'
    const copy = { ...record }
    sizes.recreated(record, copy)
    const pending = sizes.measure(asChanges(removed(copy)))
    expect(pending.bytes).toBe(0)
  })
})
