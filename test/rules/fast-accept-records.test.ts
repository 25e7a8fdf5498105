import fc from 'fast-check'
import { describe, expect, it, vi } from 'vitest'
import * as z from 'zod'
import { buildDataset } from '../../fixtures/index.ts'
import { fastParseOf, withFastAccept } from '../../src/api/fast-accept.ts'
import {
  type CollectionName,
  collectionNames,
  collectionTable,
} from '../../src/model/collections.ts'
import type { MockState } from '../../src/model/database.ts'

// The records a state file holds are checked at a load by a check derived from each collection's
// schema (`fastParseOf`, `withFastAccept`): zod's answer must come out, record by record, whatever
// the record. These records start from valid ones of every collection and are bent a little.

const seeded = buildDataset({ organisations: 1 }).state
const at = '2024-06-25T02:51:05+00:00'
/** Valid records of every collection: the seed's, and one of each the seed does not make. */
const valid: MockState = {
  ...seeded,
  signInTokens: [
    {
      tokenHash: 'a'.repeat(64),
      userId: 'u-1',
      orgId: 'org-1',
      issuedAt: at,
      expiresAt: '2024-06-25T02:56:05Z',
      redeemedAt: null,
    },
    {
      tokenHash: 'b'.repeat(64),
      userId: 'u-1',
      orgId: 'org-1',
      issuedAt: at,
      expiresAt: at,
      redeemedAt: '2024-06-25T02:52:00.123-05:30',
    },
  ],
  webViewSessions: [{ sessionHash: 'c'.repeat(64), userId: 'u-1', orgId: 'org-1', createdAt: at }],
  organisationStarts: [{ orgId: 'org-9', records: '{"users":[]}' }],
  organisationSnapshots: [
    {
      orgId: 'org-1',
      name: 'ten-users.v2',
      createdAt: at,
      users: 0,
      bytes: 16,
      records: '{"users":[]}',
      settings: '{}',
    },
  ],
  organisationShapes: [
    { orgId: 'org-1', shapes: null, variedUsers: 0 },
    { orgId: 'org-2', shapes: 'varied', variedUsers: 12 },
  ],
  userShapes: [{ userId: 'u-1', shapeCase: 'mixed-west' }],
  organisationLatencies: [
    { orgId: 'org-1', latency: '{"fixedMs":50}' },
    { orgId: 'org-2', latency: '{"medianMs":80,"p99Ms":900}' },
  ],
  clocks: [
    { orgId: '', mode: 'running', at: '2030-01-01T00:00:00.000Z', since: at },
    { orgId: 'org-1', mode: 'frozen', at: '2030-01-01T00:00:00.123Z', since: null },
  ],
}

/** Values near every rule of the records: bounds, formats, enums, types. */
const nearValues: unknown[] = [
  // strings: empty, at and past a 200-character bound, enum values and near ones
  '',
  'a',
  'x'.repeat(200),
  'x'.repeat(201),
  'registered',
  'Registered',
  'archived',
  'female',
  'femme',
  '35-44',
  '65+',
  'varied',
  '{"fixedMs":5}',
  '{"uniformMs":[9,3]}',
  'frozen',
  'Frozen',
  // date-times: valid (a leap day, a fraction, Z, offsets) and not (no offset, a bad day, hour…)
  at,
  '2024-02-29T00:00:00Z',
  '2023-02-29T00:00:00Z',
  '2000-02-29T12:00:00+01:00',
  '1900-02-29T12:00:00+01:00',
  '2024-06-25T02:51:05.1234567Z',
  '2024-06-25T02:51:05',
  '2024-06-25T24:00:00Z',
  '2024-06-25T02:60:00Z',
  '2024-06-25 02:51:05Z',
  '2024-06-25T02:51:05+0000',
  '2024-06-25T02:51:05+24:00',
  '2024-06-31T02:51:05Z',
  ' 2024-06-25T02:51:05Z',
  '2024-06-25T02:51:05Z\n',
  // dates
  '2024-06-25',
  '2024-02-29',
  '2023-02-29',
  '2024-13-01',
  '2024-6-25',
  // numbers: in and out of 0..100, not integers, not finite, past the safe integers
  0,
  -0,
  1,
  50,
  100,
  101,
  -1,
  0.5,
  1e21,
  2 ** 53,
  Number.MAX_SAFE_INTEGER,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  // other types
  null,
  undefined,
  true,
  {},
  [],
  ['g-1'],
  [''],
  [1],
  [null],
  { orgId: 'org-1' },
]

/** A value that is no plain object, or a record's copy with another prototype. */
function oddObjects(record: object): unknown[] {
  class Held {}
  class Groups extends Array {}
  const sparse: unknown[] = []
  sparse[1] = 'g-1'
  return [
    null,
    'record',
    [record],
    Object.assign(Object.create(null), record),
    Object.assign(new Held(), record),
    // a sparse array, and an array of another kind, where an array of strings is
    ...('userGroups' in record
      ? [
          { ...record, userGroups: sparse },
          { ...record, userGroups: Groups.from(['g-1']) },
        ]
      : []),
    // a field not enumerable, and one inherited
    Object.defineProperty({ ...record }, Object.keys(record)[0] as string, { enumerable: false }),
    Object.assign(Object.create(record), { [Object.keys(record)[0] as string]: undefined }),
  ]
}

const names = fc.constantFrom(...collectionNames)
/** A record of collection `name` bent by up to three changes: a field set, removed, added, moved. */
const bentRecord = (name: CollectionName) =>
  fc
    .record({
      base: fc.constantFrom(...(valid[name] as object[])),
      changes: fc.array(
        fc.oneof(
          fc.record({
            op: fc.constant('set' as const),
            field: fc.oneof(
              fc.constantFrom(...Object.keys(collectionTable[name].schema.shape)),
              fc.constantFrom('other', '__proto__', 'constructor', 'toString'),
            ),
            value: fc.oneof(fc.constantFrom(...nearValues), fc.string({ maxLength: 4 })),
          }),
          fc.record({
            op: fc.constantFrom('remove' as const, 'move' as const),
            field: fc.constantFrom(...Object.keys(collectionTable[name].schema.shape)),
          }),
        ),
        { maxLength: 3 },
      ),
      json: fc.boolean(),
      odd: fc.oneof(
        { weight: 7, arbitrary: fc.constant(null) },
        { weight: 1, arbitrary: fc.nat() },
      ),
    })
    .map(({ base, changes, json, odd }) => {
      let record: Record<string, unknown> = structuredClone(base) as Record<string, unknown>
      for (const change of changes) {
        const value = record[change.field]
        if (change.op === 'set') {
          // As JSON.parse sets it: an own key, even `__proto__`.
          Object.defineProperty(record, change.field, {
            value: structuredClone(change.value),
            enumerable: true,
            writable: true,
            configurable: true,
          })
        } else {
          delete record[change.field]
          if (change.op === 'move' && value !== undefined) record[change.field] = value
        }
      }
      if (json) record = JSON.parse(JSON.stringify(record))
      if (odd === null) return record
      const odds = oddObjects(record)
      return odds[odd % odds.length]
    })
const anyRecord = names.chain((name) => fc.tuple(fc.constant(name), bentRecord(name)))

/** Whether `a` and `b` share an object anywhere: a copy must share none with what it copied. */
function sharesAnObject(a: unknown, b: unknown): boolean {
  if (typeof a !== 'object' || a === null) return false
  if (a === b) return true
  return Object.entries(a).some(([key, value]) =>
    sharesAnObject(value, (b as Record<string, unknown>)?.[key]),
  )
}

describe('the load check of every collection', () => {
  const parses = Object.fromEntries(
    collectionNames.map((name) => [name, fastParseOf(collectionTable[name].schema)]),
  ) as Record<CollectionName, (value: unknown) => unknown>
  const accepts = Object.fromEntries(
    collectionNames.map((name) => [name, withFastAccept(collectionTable[name].schema)]),
  ) as unknown as Record<CollectionName, z.ZodType>

  it('is derived for every collection: no record schema is left to zod whole', () => {
    for (const name of collectionNames) {
      expect(accepts[name], name).not.toBe(collectionTable[name].schema)
    }
  })

  it('gives what zod gives for any record, bent or not, a copy sharing nothing', () => {
    fc.assert(
      fc.property(anyRecord, ([name, input]) => {
        const expected = collectionTable[name].schema.safeParse(input)
        let got: unknown
        let thrown: unknown
        try {
          got = parses[name](input)
        } catch (error) {
          thrown = error
        }
        expect(thrown instanceof z.ZodError, `${name}: refused`).toBe(!expected.success)
        const accepted = accepts[name].safeParse(input)
        expect(accepted.success, `${name}: accepted as it is`).toBe(expected.success)
        if (!expected.success) return
        // The same values, in the same order (JSON.stringify of each is the same text).
        expect(got).toStrictEqual(expected.data)
        expect(JSON.stringify(got)).toBe(JSON.stringify(expected.data))
        expect(sharesAnObject(got, input)).toBe(false)
        // Accepted as it is only when zod would give it back unchanged, order aside.
        expect(accepted.data).toStrictEqual(expected.data)
      }),
      { numRuns: 20_000 },
    )
  })

  it('copies a valid record by itself, zod not asked', () => {
    for (const name of collectionNames) {
      const { schema } = collectionTable[name]
      const parse = fastParseOf(schema)
      const zod = vi.spyOn(schema, 'parse')
      try {
        for (const record of valid[name] as object[]) {
          const input = JSON.parse(JSON.stringify(record))
          expect(parse(input)).toStrictEqual(record)
        }
        expect(zod, name).not.toHaveBeenCalled()
      } finally {
        zod.mockRestore()
      }
    }
  })

  it("leaves a record with its keys out of the schema's order to zod, which orders them", () => {
    const { schema } = collectionTable.certificates
    const [first] = valid.certificates
    const reversed = Object.fromEntries(Object.entries(first ?? {}).reverse())
    const zod = vi.spyOn(schema, 'parse')
    try {
      const copy = fastParseOf(schema)(reversed)
      expect(zod).toHaveBeenCalledOnce()
      expect(Object.keys(copy)).toEqual(Object.keys(schema.shape))
    } finally {
      zod.mockRestore()
    }
  })
})
