import type * as z from 'zod'
import { dateTimeSchema, userProfileSchema } from './api-schemas.ts'

// The forms identify's answer may take within the API description: the one table the answer
// shapes and the guide's section are read from, and the committed covering set of cases
// (shape-cases.ts) is checked against. A dimension's first form is the one the `full` mode sends,
// and the one every case takes of a dimension it does not name.

type ProfileShape = typeof userProfileSchema.shape

/** The fields of `UserProfile` the API makes optional (and nullable): each may be left out. */
export type OptionalProfileField = {
  [F in keyof ProfileShape]: ProfileShape[F] extends z.ZodOptional ? F : never
}[keyof ProfileShape]

/** The optional fields of `UserProfile`, in the order the answer sends them. */
export const optionalProfileFields = Object.entries(userProfileSchema.shape)
  .filter(([, field]) => field.def.type === 'optional')
  .map(([name]) => name as OptionalProfileField)

/** The timestamps of `UserProfile` (date-times, whose offset and precision may vary). */
export const timestampFields = optionalProfileFields.filter(
  (name) => userProfileSchema.shape[name].unwrap().unwrap() === dateTimeSchema,
)

/**
 * One form of a dimension: what it sends, in words for the guide. A form whose rule reads a value
 * carries it as data beside (an offset's `suffix`), and its words are made from it.
 */
export interface ShapeForm {
  /** What it sends, for the guide. */
  doc: string
}

/** One way an answer may differ: its forms. */
export interface ShapeDimension {
  /** What varies, for the guide. */
  doc: string
  /** Each form by the word a case's name uses; the first is `full`'s. */
  forms: Readonly<Record<string, ShapeForm>>
}

const nullOrAbsent = {
  doc: 'when the record holds no value',
  forms: { null: { doc: 'sent as `null`' }, absent: { doc: 'left out' } },
} as const satisfies ShapeDimension

/** An offset form: the suffix every timestamp is written with, which the guide shows as it is. */
function offsetForm<S extends string>(suffix: S): { suffix: S; doc: string } {
  return { suffix, doc: `\`${suffix}\`` }
}

/**
 * Every dimension of the answer shapes: each optional profile field whose stored value is `null`
 * (sent as `null` or left out), the timestamps' offset and their fractional seconds (always the
 * stored instant), the order of `userGroups`, and the status of a user identify creates (decided
 * when it is created, kept in its record). A new optional field of `userProfileSchema` is a
 * dimension of its own with no change here; a new dimension, like a new form, asks for cases
 * appended to the covering set (see docs/decisions/adding-a-shape-case.md).
 *
 * @example Object.keys(shapeDimensions.offset.forms) // ['utc', 'z', 'east', 'west']
 */
export const shapeDimensions = {
  ...(Object.fromEntries(optionalProfileFields.map((field) => [field, nullOrAbsent])) as Record<
    OptionalProfileField,
    typeof nullOrAbsent
  >),
  offset: {
    doc: `the offset of every timestamp (${timestampFields.map((f) => `\`${f}\``).join(', ')}), the stored instant`,
    forms: {
      utc: offsetForm('+00:00'),
      z: offsetForm('Z'),
      east: offsetForm('+05:30'),
      west: offsetForm('-08:00'),
    },
  },
  fraction: {
    doc: 'the fractional seconds of every timestamp',
    forms: {
      whole: { doc: 'none (a stored fraction other than zero is kept)' },
      fraction: { doc: 'milliseconds at least (`.000`)' },
    },
  },
  groupOrder: {
    doc: 'the order of `userGroups`',
    forms: { stored: { doc: 'as stored' }, reversed: { doc: 'reversed (the same members)' } },
  },
  newUser: {
    doc: 'the status of a user identify creates, fixed in its record',
    forms: {
      registered: { doc: '`registered`, `registeredAt` its creation time' },
      unregistered: { doc: '`unregistered`, `registeredAt` `null`' },
    },
  },
} as const satisfies Record<string, ShapeDimension>

export type ShapeDimensionName = keyof typeof shapeDimensions

/** A form of each dimension: what one case of the answer shapes sends. */
export type ShapeForms = {
  [D in ShapeDimensionName]: keyof (typeof shapeDimensions)[D]['forms'] & string
}

/** The dimensions' names, in the table's order. */
export const shapeDimensionNames = Object.keys(shapeDimensions) as ShapeDimensionName[]

/** The forms of dimension `name`, `full`'s first. */
export function formsOf<D extends ShapeDimensionName>(name: D): ShapeForms[D][] {
  return Object.keys(shapeDimensions[name].forms) as ShapeForms[D][]
}
