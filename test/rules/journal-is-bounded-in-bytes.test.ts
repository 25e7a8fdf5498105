import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { describe, expect, it } from 'vitest'
import { heldBytes } from '../../src/base/held-bytes.ts'
import {
  CallJournal,
  entryOverheadBytes,
  refusedPathLength,
  refusedRequestLength,
} from '../../src/core/call-journal.ts'
import type { JournalEntry } from '../../src/core/journal.ts'

/**
 * The journal is bounded in bytes, measured as held: each organisation keeps its newest
 * `entries`, all of them together at most `bytes`, the organisation holding the most losing its
 * oldest first; calls refused before authentication are kept apart in a small form.
 */

const kib = 1024
/** An identify refused 400 whose body is an array of `n` empty objects: `[{},{},…]`. */
const floodEntry = (n: number): JournalEntry => ({
  time: '2025-01-01T00:00:00+00:00',
  orgTime: '2025-01-01T00:00:00+00:00',
  method: 'POST',
  path: '/api/v1/users/identify',
  status: 400,
  durationMs: 1.5,
  delayMs: 0,
  operation: 'identify',
  request: Array.from({ length: n }, () => ({})),
})
const deleteEntry = (id: string, status = 404): JournalEntry => ({
  time: '2025-01-01T00:00:00+00:00',
  orgTime: '2025-01-01T00:00:00+00:00',
  method: 'DELETE',
  path: `/api/v1/users/acme/${id}`,
  status,
  durationMs: 0.25,
  delayMs: 0,
  operation: 'delete',
  request: { orgId: 'acme', id },
})

function journalOf(limits: { entries: number; bytes: number }, orgs = ['a', 'b', 'c']) {
  return new CallJournal(limits, (orgId) => orgs.includes(orgId))
}

function keep(journal: CallJournal, owner: string | undefined, entry: JournalEntry) {
  journal.end(journal.begin(owner), entry)
}

describe('the byte budget of the organisations together', () => {
  it('is never passed, and the organisation holding the most loses its oldest entry first', () => {
    const journal = journalOf({ entries: 1000, bytes: 256 * kib })
    keep(journal, 'b', deleteEntry('b-1'))
    keep(journal, 'b', deleteEntry('b-2'))
    for (let i = 0; i < 1000; i++) {
      keep(journal, 'a', floodEntry(5460))
      expect(journal.bytes).toBeLessThanOrEqual(256 * kib)
    }
    // a's 16 KiB bodies fill the budget; b's two small entries are never the largest.
    expect(journal.list('b').map((e) => e.request)).toEqual([
      { orgId: 'acme', id: 'b-1' },
      { orgId: 'acme', id: 'b-2' },
    ])
    const kept = journal.list('a')
    expect(kept.length).toBeGreaterThan(10)
    expect(kept.length).toBeLessThan(20)
    expect(kept[0]?.request).toHaveLength(5460)
  })

  it('keeps the newest `entries` of each organisation, whatever their size', () => {
    const journal = journalOf({ entries: 3, bytes: 16 * kib * kib })
    for (let i = 1; i <= 5; i++) keep(journal, 'a', deleteEntry(`a-${i}`))
    expect(journal.list('a').map((e) => (e.request as { id: string }).id)).toEqual([
      'a-3',
      'a-4',
      'a-5',
    ])
    expect(journal.bytes).toBe(
      3 *
        (entryOverheadBytes +
          heldBytes('/api/v1/users/acme/a-3') +
          heldBytes('{"orgId":"acme","id":"a-3"}')),
    )
  })

  it('measures a string as held: one byte a Latin-1 character, two otherwise', () => {
    expect(heldBytes('abc')).toBe(3)
    expect(heldBytes('café')).toBe(4)
    expect(heldBytes('a€')).toBe(4)
  })

  it('gives the bytes of a forgotten organisation back', () => {
    const journal = journalOf({ entries: 10, bytes: 16 * kib * kib })
    keep(journal, 'a', deleteEntry('a-1'))
    const one = journal.bytes
    keep(journal, 'b', deleteEntry('b-1'))
    journal.forget('b')
    expect(journal.bytes).toBe(one)
    journal.clear()
    expect(journal.bytes).toBe(0)
  })
})

describe('calls refused before authentication', () => {
  it('are kept apart, in a small form, and never evict an organisation’s entries', () => {
    const journal = journalOf({ entries: 5, bytes: 64 * kib })
    keep(journal, 'a', deleteEntry('kept', 200))
    const longPath = `/api/v1/users/a/${'p'.repeat(16_000)}`
    for (let i = 0; i < 50; i++) {
      // Refused before its key: owned by none, whatever its path names.
      journal.end(journal.begin(undefined), { ...floodEntry(5460), status: 401, path: longPath })
    }
    // The organisation's own entry alone under its name; the newest five refused ones with all.
    expect(journal.list('a').map((entry) => entry.request)).toEqual([{ orgId: 'acme', id: 'kept' }])
    const listed = journal.list()
    expect(listed).toHaveLength(6)
    expect(listed[0]?.request).toEqual({ orgId: 'acme', id: 'kept' })
    for (const entry of listed.slice(1)) {
      expect(entry.path).toBe(`${longPath.slice(0, refusedPathLength)}…`)
      // A request longer than the small form keeps is journaled as `null`.
      expect(entry.request).toBeNull()
    }
    expect(journal.bytes).toBeLessThan(entryOverheadBytes + 100)
  })

  it('keep a request up to the small form’s length', () => {
    const journal = journalOf({ entries: 5, bytes: 64 * kib })
    const id = 'x'.repeat(refusedRequestLength - 30)
    keep(journal, undefined, { ...deleteEntry(id, 401) })
    expect(journal.list()[0]?.request).toEqual({ orgId: 'acme', id })
  })
})

describe('reading', () => {
  it('lists the entries as they were journaled, and writes the same JSON without parsing', async () => {
    const journal = journalOf({ entries: 10, bytes: 16 * kib * kib })
    keep(journal, 'a', { ...deleteEntry('a/b'), status: 200 })
    keep(journal, undefined, {
      time: '2025-01-01T00:00:01+00:00',
      orgTime: '2025-01-01T00:00:01+00:00',
      method: 'GET',
      path: '/api/nowhere',
      status: 404,
      durationMs: 0.1,
      delayMs: 0,
    })
    keep(journal, 'b', {
      time: '2025-01-01T00:00:02+00:00',
      orgTime: '2025-01-01T00:00:02+00:00',
      method: 'POST',
      path: '/api/v1/users/identify',
      status: 200,
      durationMs: 3,
      delayMs: 0,
      operation: 'identify',
      request: { id: 'zoë', orgId: 'b', data: { firstName: '名前' } },
      shape: 'full',
    })
    const entries = journal.list()
    expect(entries.map((e) => e.status)).toEqual([200, 404, 200])
    expect(entries[2]?.request).toEqual({ id: 'zoë', orgId: 'b', data: { firstName: '名前' } })
    const written = async (orgId?: string, limit?: number) => {
      let text = ''
      for await (const piece of journal.json(orgId, limit)) text += piece
      return text
    }
    expect(await written()).toBe(JSON.stringify(entries))
    expect(await written(undefined, 2)).toBe(JSON.stringify(entries.slice(-2)))
    expect(await written('b')).toBe(JSON.stringify(journal.list('b')))
    expect(await written('nobody')).toBe('[]')
  })
})

describe('memory', () => {
  it('holds no more than it counts: what a full journal adds to the heap is its budget, and a fixed overhead', async () => {
    const gc = exposedGc()
    const budget = 8 * kib * kib
    const heapAfterGc = async () => {
      for (let i = 0; i < 3; i++) {
        gc()
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
      return process.memoryUsage().heapUsed
    }
    const journal = journalOf({ entries: 1000, bytes: budget }, ['a', 'b', 'c', 'd'])
    const before = await heapAfterGc()
    // 16 KiB bodies that parse to 5,460 objects each (about 22 times their text), and small ones.
    for (const org of ['a', 'b', 'c', 'd']) {
      for (let i = 0; i < 1000; i++) keep(journal, org, deleteEntry(`${org}-${i}`))
      for (let i = 0; i < 200; i++) keep(journal, org, floodEntry(5460))
    }
    const grown = (await heapAfterGc()) - before
    // Full: the budget was reached, and what it counts is what the heap holds.
    expect(journal.bytes).toBeLessThanOrEqual(budget)
    expect(journal.bytes).toBeGreaterThan(budget - 32 * kib)
    expect(grown).toBeLessThanOrEqual(budget + 256 * kib)
    // Each small entry is counted at least as what it holds.
    journal.clear()
    const empty = await heapAfterGc()
    for (let i = 0; i < 4000; i++) keep(journal, ['a', 'b', 'c', 'd'][i % 4], deleteEntry(`${i}`))
    expect((await heapAfterGc()) - empty).toBeLessThanOrEqual(journal.bytes)
  })
})

/** V8's `gc`, taken from a context created while `--expose-gc` is set. */
function exposedGc(): () => void {
  setFlagsFromString('--expose-gc')
  try {
    return runInNewContext('gc') as () => void
  } finally {
    setFlagsFromString('--no-expose-gc')
  }
}
