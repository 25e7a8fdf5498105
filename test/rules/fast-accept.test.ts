import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as z from 'zod'
import { identifyUserRequestSchema } from '../../src/api/api-schemas.ts'
import { fastParseOf, withFastAccept } from '../../src/api/fast-accept.ts'

/** Strings near every bound and rule of the schema: empty, long, lone surrogates, enum values. */
const text = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.constantFrom('', 'a', 'female', 'male', '35-44', '65+', 'x'.repeat(256), 'x'.repeat(257)),
  fc.constantFrom('x'.repeat(1024), 'x'.repeat(1025), '\ud800', 'a\udc00', '\ud83d\ude00'),
)
const value = fc.oneof(
  { weight: 6, arbitrary: text },
  { weight: 1, arbitrary: fc.constantFrom(null, 1, true, {}, [], ['a'], [''], ['x'.repeat(257)]) },
  { weight: 2, arbitrary: fc.array(text, { maxLength: 4 }) },
)
const fieldNames = fc.constantFrom(
  'firstName',
  'lastName',
  'country',
  'region',
  'sex',
  'ageBracket',
  'userGroups',
  'other',
  '__proto__',
  'constructor',
)
const data = fc.oneof(
  fc.dictionary(fieldNames, value, { maxKeys: 8 }),
  fc.constantFrom(null, 'data', [], {}),
)
/** Bodies as a client sends them, parsed from JSON: mostly valid, often not. */
const body = fc
  .record({ id: text, orgId: text, data, extra: value }, { requiredKeys: ['id', 'orgId'] })
  .map((record) => JSON.parse(JSON.stringify(record)) as unknown)

describe('a schema with a fast accept', () => {
  const fast = withFastAccept(identifyUserRequestSchema)

  it('answers every body as zod does, a valid one by itself, as it is', () => {
    fc.assert(
      fc.property(body, (input) => {
        const expected = identifyUserRequestSchema.safeParse(input)
        const got = fast.safeParse(input)
        expect(got.success).toBe(expected.success)
        if (!expected.success) return
        expect(got.data).toStrictEqual(expected.data)
        // Accepted by the check itself, not by zod under another name: no copy.
        expect(got.data).toBe(input)
      }),
      { numRuns: 3000 },
    )
  })

  it('accepts a full identify body as it is, without a copy', () => {
    const input = JSON.parse(
      '{"id":"u-1","orgId":"org-1","data":{"firstName":"Ada","sex":"female","ageBracket":"35-44","userGroups":["g"]}}',
    )
    expect(fast.safeParse(input)).toStrictEqual({ success: true, data: input })
    expect(fast.safeParse(input).data).toBe(input)
  })

  it('sees a field as zod does: present when not enumerable, or inherited from Object', () => {
    const schema = z.strictObject({
      note: z.string().optional(),
      constructor: z.string().optional(),
    })
    const hidden = Object.defineProperty({}, 'note', { value: 1, enumerable: false })
    for (const input of [{}, hidden, { constructor: 'c' }, { note: 'n', constructor: 'c' }]) {
      const expected = schema.safeParse(input)
      expect(withFastAccept(schema).safeParse(input).success).toBe(expected.success)
      if (expected.success) expect(fastParseOf(schema)(input)).toStrictEqual(expected.data)
      else expect(() => fastParseOf(schema)(input)).toThrow(z.ZodError)
    }
    // zod reads `{}.constructor` (Object itself) and refuses it: so must the check.
    expect(withFastAccept(schema).safeParse({}).success).toBe(false)
  })

  it('gives zod’s copy, not the object, when it holds an own key zod does not list', () => {
    const schema = z.strictObject({ orgId: z.string() })
    const hidden = Object.defineProperty({ orgId: 'org-1' }, 'constructor', { value: '' })
    const symbol = { orgId: 'org-1', [Symbol('extra')]: 1 }
    for (const input of [hidden, symbol]) {
      const expected = schema.safeParse(input)
      const accepted = withFastAccept(schema).safeParse(input)
      expect(accepted).toStrictEqual(expected)
      expect(accepted.data).not.toBe(input)
    }
  })

  it('leaves a schema with a part it does not cover to zod alone', () => {
    const schema = z.strictObject({ at: z.email() })
    expect(withFastAccept(schema)).toBe(schema)
  })
})
