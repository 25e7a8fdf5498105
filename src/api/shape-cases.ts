import * as z from 'zod'
import {
  formsOf,
  type OptionalProfileField,
  optionalProfileFields,
  type ShapeForms,
  shapeDimensionNames,
} from './answer-shapes.ts'

/** A case of the answer shapes: its name, and the form of each dimension it sends. */
export interface ShapeCase {
  /** Lowercase words joined by `-`, e.g. `absent-fraction-reversed-unregistered`. */
  name: string
  forms: ShapeForms
}

/** A case as the list below commits it: its name, and the forms it takes other than `full`'s. */
interface CommittedCase {
  readonly name: string
  readonly forms: Partial<ShapeForms>
}

/** The optional fields `fields`, each left out. */
function absent(...fields: OptionalProfileField[]): Partial<ShapeForms> {
  return Object.fromEntries(fields.map((field) => [field, 'absent']))
}

/**
 * The covering set of the answer shapes, committed: every form of every dimension in at least one
 * case, and every pair of forms of two different dimensions together in at least one (pairwise).
 * Users' tests, data files and state files name these cases, so the list only grows: a case keeps
 * its place, its name and its forms, and a new one is appended (see
 * docs/decisions/adding-a-shape-case.md). A dimension a case does not name, it takes in its first
 * form, `full`'s: so a dimension added to the table leaves every case as it was, and the cases
 * appended for it cover its other forms. `test/rules/shape-cases-cover-every-pair.test.ts` fails
 * when the list is not pairwise, naming the pairs missing and the cases to append, and when one of
 * the first ten cases changes.
 */
const committedCases: readonly CommittedCase[] = [
  { name: 'nulls', forms: {} },
  {
    name: 'absent-fraction-reversed-unregistered',
    // Every optional field, a field added later too: the case leaves out all it may.
    forms: {
      ...absent(...optionalProfileFields),
      fraction: 'fraction',
      groupOrder: 'reversed',
      newUser: 'unregistered',
    },
  },
  {
    name: 'mixed-z-fraction-unregistered',
    forms: {
      ...absent(
        'registeredAt',
        'lastName',
        'region',
        'ageBracket',
        'learningPathName',
        'learningPathDueDate',
      ),
      offset: 'z',
      fraction: 'fraction',
      newUser: 'unregistered',
    },
  },
  {
    name: 'mixed-z-reversed',
    forms: {
      ...absent(
        'lastActive',
        'firstName',
        'country',
        'sex',
        'learningPathId',
        'learningPathStartDate',
        'learningPathCompletedAt',
      ),
      offset: 'z',
      groupOrder: 'reversed',
    },
  },
  {
    name: 'mixed-east-reversed-unregistered',
    forms: {
      ...absent(
        'firstName',
        'lastName',
        'sex',
        'ageBracket',
        'learningPathStartDate',
        'learningPathDueDate',
      ),
      offset: 'east',
      groupOrder: 'reversed',
      newUser: 'unregistered',
    },
  },
  {
    name: 'mixed-east-fraction',
    forms: {
      ...absent(
        'lastActive',
        'registeredAt',
        'country',
        'region',
        'learningPathId',
        'learningPathName',
        'learningPathCompletedAt',
      ),
      offset: 'east',
      fraction: 'fraction',
    },
  },
  {
    name: 'mixed-west-fraction-reversed-unregistered',
    forms: {
      ...absent('country', 'region', 'sex', 'ageBracket', 'learningPathCompletedAt'),
      offset: 'west',
      fraction: 'fraction',
      groupOrder: 'reversed',
      newUser: 'unregistered',
    },
  },
  {
    name: 'mixed-west',
    forms: {
      ...absent(
        'lastActive',
        'registeredAt',
        'firstName',
        'lastName',
        'learningPathId',
        'learningPathName',
        'learningPathStartDate',
        'learningPathDueDate',
      ),
      offset: 'west',
    },
  },
  {
    name: 'mixed',
    forms: absent(
      'registeredAt',
      'firstName',
      'lastName',
      'country',
      'region',
      'sex',
      'ageBracket',
      'learningPathId',
    ),
  },
  {
    name: 'mixed-fraction-reversed-unregistered',
    forms: {
      ...absent(
        'lastActive',
        'learningPathName',
        'learningPathStartDate',
        'learningPathDueDate',
        'learningPathCompletedAt',
      ),
      fraction: 'fraction',
      groupOrder: 'reversed',
      newUser: 'unregistered',
    },
  },
]

/**
 * The covering set of cases, in the committed order (what `api.shapes.cases()` and
 * `GET /__mock/shapes` list), each with the form of every dimension, in the table's order. Frozen:
 * the package hands this very list to tests (`describe.each(shapeCases)`), and the mock reads it.
 *
 * @example
 * import { shapeCases } from 'identify-api-mock/client'
 * describe.each(shapeCases)('answer shape $name', ({ name }) => { … })
 */
export const shapeCases: readonly Readonly<ShapeCase>[] = Object.freeze(
  committedCases.map(({ name, forms }) =>
    Object.freeze({
      name,
      forms: Object.freeze(
        Object.fromEntries(
          shapeDimensionNames.map((dimension) => [
            dimension,
            forms[dimension] ?? formsOf(dimension)[0],
          ]),
        ) as ShapeForms,
      ),
    }),
  ),
)

/**
 * A schema of `names` whose refusal of a text names it (`…, not "sideways"`), cut to 60
 * characters and written as JSON (one line, whatever it holds): a data file, a state file, a flag
 * or a control that names a case this version lacks is told which.
 */
function namesSchema<const T extends readonly string[]>(names: T) {
  const expected = `Invalid option: expected one of ${names.map((name) => `"${name}"`).join('|')}`
  return z.enum(names, {
    error: ({ input }) =>
      typeof input === 'string'
        ? `${expected}, not ${JSON.stringify(input.length > 60 ? `${input.slice(0, 59)}…` : input)}`
        : expected,
  })
}

/**
 * What the answer shapes of a mock or an organisation are: `full` (every field, as stored: the
 * default), `varied` (each user in the case it took when it was created), or a case's name.
 *
 * @example shapesSchema.parse('varied')
 */
export const shapesSchema = namesSchema(['full', 'varied', ...shapeCases.map((c) => c.name)])

export type Shapes = z.output<typeof shapesSchema>

/**
 * A case's name: what a user's record of a `varied` organisation keeps.
 *
 * @example shapeCaseNameSchema.parse('mixed-west')
 */
export const shapeCaseNameSchema = namesSchema(shapeCases.map((c) => c.name))

const casesByName = new Map(shapeCases.map((c) => [c.name, c]))

/** The case named `name`, if the covering set has one. */
export function shapeCaseNamed(name: string): ShapeCase | undefined {
  return casesByName.get(name)
}
