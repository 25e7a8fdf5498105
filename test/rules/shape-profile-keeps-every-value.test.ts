import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  formsOf,
  optionalProfileFields,
  type ShapeForms,
  shapeDimensionNames,
  timestampFields,
} from '../../src/api/answer-shapes.ts'
import { type UserProfile, userProfileSchema } from '../../src/api/api-schemas.ts'
import { shapeProfile } from '../../src/rules/shape-profile.ts'
import { propertyParameters } from '../support/properties.ts'

const forms: fc.Arbitrary<ShapeForms> = fc.record(
  Object.fromEntries(
    shapeDimensionNames.map((name) => [name, fc.constantFrom(...formsOf(name))]),
  ) as { [D in keyof ShapeForms]: fc.Arbitrary<ShapeForms[D]> },
)

/** A stored timestamp: any offset the schema accepts, and 0 to 9 fractional digits. */
const timestamp = fc
  .tuple(
    fc.date({
      min: new Date('1000-01-01T00:00:00Z'),
      max: new Date('9000-12-31T00:00:00Z'),
      noInvalidDate: true,
    }),
    fc.constantFrom('Z', '+00:00', '+05:30', '-08:00', '+14:00', '-12:00'),
    fc.stringMatching(/^\d{0,9}$/),
  )
  .map(([date, zone, digits]) => {
    const local = new Date(date.getTime() + offsetMs(zone))
    return `${local.toISOString().slice(0, 19)}${digits && `.${digits}`}${zone}`
  })

function offsetMs(zone: string): number {
  if (zone === 'Z') return 0
  const sign = zone.startsWith('-') ? -1 : 1
  return sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6))) * 60_000
}

/** The instant of a timestamp, to the digit: whole seconds and the fraction's digits. */
function instantOf(text: string): { seconds: number; fraction: string } {
  const [, whole = '', digits = '', zone = ''] =
    /^(.{19})(?:\.(\d+))?(Z|[+-]\d{2}:\d{2})$/.exec(text) ?? []
  return {
    seconds: (Date.parse(`${whole}Z`) - offsetMs(zone)) / 1000,
    fraction: digits.replace(/0+$/, ''),
  }
}

const profile: fc.Arbitrary<Required<UserProfile>> = fc.record({
  userId: fc.uuid(),
  registrationStatus: fc.constantFrom('registered', 'unregistered', 'archived'),
  lastActive: fc.option(timestamp),
  registeredAt: fc.option(timestamp),
  firstName: fc.option(fc.string()),
  lastName: fc.option(fc.string()),
  country: fc.option(fc.string()),
  region: fc.option(fc.string()),
  sex: fc.option(fc.constantFrom('male', 'female')),
  ageBracket: fc.option(fc.constantFrom('18-24', '65+')),
  userGroups: fc.uniqueArray(fc.string({ minLength: 1 }), { maxLength: 5 }),
  learningPathId: fc.option(fc.string()),
  learningPathName: fc.option(fc.string()),
  learningPathStartDate: fc.option(fc.constant('2025-01-31')),
  learningPathDueDate: fc.option(fc.constant('2025-03-01')),
  learningPathCompletedAt: fc.option(timestamp),
})

describe('shapeProfile', () => {
  it('never drops or changes a value the record holds: only its form varies', () => {
    fc.assert(
      fc.property(profile, forms, (full, chosen) => {
        const shaped = shapeProfile(full, chosen) as Record<string, unknown>
        expect(userProfileSchema.safeParse(shaped).success).toBe(true)
        for (const [field, value] of Object.entries(full)) {
          if (value === null) {
            const form = chosen[field as keyof ShapeForms]
            expect(field in shaped).toBe(form !== 'absent')
            if (field in shaped) expect(shaped[field]).toBeNull()
          } else if ((timestampFields as string[]).includes(field)) {
            expect(instantOf(shaped[field] as string)).toEqual(instantOf(value as string))
          } else if (field === 'userGroups') {
            expect([...(shaped[field] as string[])].sort()).toEqual([...full.userGroups].sort())
          } else {
            expect(shaped[field]).toBe(value)
          }
        }
      }),
      propertyParameters(),
    )
  })

  it("writes every timestamp in the case's offset, with or without fractional seconds", () => {
    const suffixes = { utc: '+00:00', z: 'Z', east: '+05:30', west: '-08:00' }
    fc.assert(
      fc.property(timestamp, forms, (stored, chosen) => {
        const full = { ...emptyProfile, lastActive: stored }
        const sent = shapeProfile(full, chosen).lastActive as string
        expect(sent.endsWith(suffixes[chosen.offset])).toBe(true)
        const hasFraction = /\.\d+/.test(sent)
        if (chosen.fraction === 'fraction') expect(sent).toMatch(/:\d{2}\.\d{3,}/)
        else expect(hasFraction).toBe(instantOf(stored).fraction !== '')
      }),
      propertyParameters(),
    )
  })

  it('sends the groups reversed in the reversed form, and as stored otherwise', () => {
    const full = { ...emptyProfile, userGroups: ['first', 'second', 'third'] }
    const all = (groupOrder: ShapeForms['groupOrder']) =>
      shapeProfile(full, { ...fullForms, groupOrder }).userGroups
    expect(all('stored')).toEqual(['first', 'second', 'third'])
    expect(all('reversed')).toEqual(['third', 'second', 'first'])
    expect(full.userGroups).toEqual(['first', 'second', 'third'])
  })

  it('leaves out exactly the null fields its forms say, each field on its own', () => {
    for (const field of optionalProfileFields) {
      const shaped = shapeProfile(emptyProfile, { ...fullForms, [field]: 'absent' })
      expect(Object.keys(emptyProfile).filter((f) => !(f in shaped))).toEqual([field])
    }
  })
})

const fullForms = Object.fromEntries(
  shapeDimensionNames.map((name) => [name, formsOf(name)[0]]),
) as ShapeForms

const emptyProfile: Required<UserProfile> = {
  userId: 'u-1',
  registrationStatus: 'registered',
  lastActive: null,
  registeredAt: null,
  firstName: null,
  lastName: null,
  country: null,
  region: null,
  sex: null,
  ageBracket: null,
  userGroups: [],
  learningPathId: null,
  learningPathName: null,
  learningPathStartDate: null,
  learningPathDueDate: null,
  learningPathCompletedAt: null,
}
