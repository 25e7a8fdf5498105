import * as z from 'zod'
import {
  formsOf,
  optionalProfileFields,
  type ShapeDimensionName,
  type ShapeForms,
  shapeDimensionNames,
} from './answer-shapes.ts'
import { pairwiseRows } from './pairwise.ts'

/** A case of the answer shapes: its name, and the form of each dimension it sends. */
export interface ShapeCase {
  /** Lowercase words joined by `-`, e.g. `absent-z-fraction-reversed-unregistered`. */
  name: string
  forms: ShapeForms
}

/** Whether dimension `name` is an optional field's (`null` or left out). */
const isField = (name: ShapeDimensionName) =>
  (optionalProfileFields as readonly string[]).includes(name)

/**
 * A case's name: `nulls`, `absent` or `mixed` for the fields the record holds no value of, then
 * the word of each other dimension's form, where it is not `full`'s.
 */
function nameOf(forms: ShapeForms): string {
  const fields = optionalProfileFields.map((field) => forms[field])
  const words = [
    fields.every((form) => form === 'null')
      ? 'nulls'
      : fields.every((form) => form === 'absent')
        ? 'absent'
        : 'mixed',
  ]
  for (const name of shapeDimensionNames) {
    if (!isField(name) && forms[name] !== formsOf(name)[0]) words.push(forms[name])
  }
  return words.join('-')
}

/**
 * The covering set of the answer shapes: every form of every dimension in at least one case, and
 * every pair of forms of two different dimensions together in at least one (pairwise). The first
 * case sends every dimension's first form (`nulls`), the second every dimension's second; the
 * others come from `pairwiseRows`, so the set is the same for a given table: stable for a version.
 */
function coveringCases(): ShapeCase[] {
  const forms = shapeDimensionNames.map((name) => formsOf(name) as string[])
  const names = new Map<string, number>()
  return pairwiseRows(forms.map((f) => f.length)).map((row) => {
    const chosen = Object.fromEntries(
      shapeDimensionNames.map((name, d) => [name, forms[d]?.[row[d] ?? 0]]),
    ) as ShapeForms
    const base = nameOf(chosen)
    const seen = (names.get(base) ?? 0) + 1
    names.set(base, seen)
    return { name: seen === 1 ? base : `${base}-${seen}`, forms: chosen }
  })
}

/**
 * The covering set of cases, in a fixed order (what `api.shapes.cases()` and `GET /__mock/shapes`
 * list).
 *
 * @example shapeCases.map((c) => c.name) // ['nulls', 'absent-z-fraction-reversed-unregistered', …]
 */
export const shapeCases: readonly ShapeCase[] = coveringCases()

/**
 * What the answer shapes of a mock or an organisation are: `full` (every field, as stored: the
 * default), `varied` (each user in the case it took when it was created), or a case's name.
 *
 * @example shapesSchema.parse('varied')
 */
export const shapesSchema = z.enum(['full', 'varied', ...shapeCases.map((c) => c.name)])

export type Shapes = z.output<typeof shapesSchema>

/** The case named `name`, if the covering set has one. */
export function shapeCaseNamed(name: string): ShapeCase | undefined {
  return shapeCases.find((c) => c.name === name)
}
