import {
  formsOf,
  optionalProfileFields,
  type ShapeDimensionName,
  type ShapeForms,
  shapeDimensionNames,
} from '../../src/api/answer-shapes.ts'
import type { ShapeCase } from '../../src/api/shape-cases.ts'

// What the test of the covering set says when the committed list stops being pairwise (a
// dimension or a form was added to the table): the pairs no case holds, and cases to append that
// hold them, written as the list in src/api/shape-cases.ts writes its cases.

/** A form of each dimension, by its index in the dimension's forms. */
type Row = readonly number[]

/** A pair of forms of two different dimensions `i < j`: form `a` of `i` with form `b` of `j`. */
export interface Pair {
  i: number
  a: number
  j: number
  b: number
}

/**
 * The pairs of forms of two different dimensions that no row holds together, for dimensions of
 * `sizes[d]` forms each; with a single dimension, each of its forms no row holds (as `j = -1`).
 *
 * @example missingPairs([2, 2], [[0, 0], [1, 1]]) // [{ i: 0, a: 0, j: 1, b: 1 }, { i: 0, a: 1, j: 1, b: 0 }]
 */
export function missingPairs(sizes: readonly number[], rows: readonly Row[]): Pair[] {
  const missing: Pair[] = []
  if (sizes.length === 1) {
    for (let a = 0; a < (sizes[0] ?? 0); a++) {
      if (!rows.some((row) => row[0] === a)) missing.push({ i: 0, a, j: -1, b: -1 })
    }
  }
  sizes.forEach((si, i) => {
    sizes.forEach((sj, j) => {
      if (j <= i) return
      for (let a = 0; a < si; a++) {
        for (let b = 0; b < sj; b++) {
          if (!rows.some((row) => row[i] === a && row[j] === b)) missing.push({ i, a, j, b })
        }
      }
    })
  })
  return missing
}

/**
 * Rows to append to `rows` so that every pair is held: each missing pair, in order, given to the
 * first appended row that leaves its two dimensions open or holds its forms already, or to a new
 * row; a dimension a row leaves open then takes its first form. `rows` themselves never change:
 * the list only grows.
 *
 * @example rowsToAppend([2, 2], [[0, 0], [1, 1]]) // [[0, 1], [1, 0]]
 */
export function rowsToAppend(sizes: readonly number[], rows: readonly Row[]): number[][] {
  const open = -1
  const added: number[][] = []
  const fits = (row: number[], d: number, form: number) =>
    d === open || row[d] === open || row[d] === form
  for (const { i, a, j, b } of missingPairs(sizes, rows)) {
    let row = added.find((r) => fits(r, i, a) && fits(r, j, b))
    if (!row) {
      row = sizes.map(() => open)
      added.push(row)
    }
    row[i] = a
    if (j !== open) row[j] = b
  }
  return added.map((row) => row.map((form) => (form === open ? 0 : form)))
}

/** `forms` as a row of form indices over today's table. */
const rowOf = (forms: ShapeForms): Row =>
  shapeDimensionNames.map((d) => (formsOf(d) as string[]).indexOf(forms[d]))

const isField = (d: ShapeDimensionName) => (optionalProfileFields as readonly string[]).includes(d)

/**
 * A name for a case, by the rule today's cases were named by: `nulls`, `absent` or `mixed` for the
 * optional fields, then the word of each other dimension's form where it is not `full`'s.
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
  for (const d of shapeDimensionNames) {
    if (!isField(d) && forms[d] !== formsOf(d)[0]) words.push(forms[d])
  }
  return words.join('-')
}

/** A case as the list in src/api/shape-cases.ts writes it: the forms other than `full`'s. */
function caseSource(name: string, forms: ShapeForms): string {
  const left = optionalProfileFields.filter((field) => forms[field] === 'absent')
  const parts =
    left.length === 0
      ? []
      : left.length === optionalProfileFields.length
        ? ['...absent(...optionalProfileFields)']
        : [`...absent(${left.map((field) => `'${field}'`).join(', ')})`]
  for (const d of shapeDimensionNames) {
    if (!isField(d) && forms[d] !== formsOf(d)[0]) parts.push(`${d}: '${forms[d]}'`)
  }
  return `  { name: '${name}', forms: { ${parts.join(', ')} } },`
}

/**
 * What the covering set `cases` lacks: the pairs of forms no case holds, in words, and cases to
 * append that hold them (named by the rule of today's names, `-2`, `-3`… where a name is taken).
 * Both empty when the set is pairwise.
 *
 * @example proposedCases(shapeCases) // { missing: [], append: [] }
 */
export function proposedCases(cases: readonly ShapeCase[]): {
  missing: string[]
  append: ShapeCase[]
} {
  const sizes = shapeDimensionNames.map((d) => formsOf(d).length)
  const rows = cases.map((c) => rowOf(c.forms))
  const formOf = (d: number, form: number) => {
    const name = shapeDimensionNames[d] as ShapeDimensionName
    return `${name} \`${formsOf(name)[form]}\``
  }
  const missing = missingPairs(sizes, rows).map(({ i, a, j, b }) =>
    j === -1 ? formOf(i, a) : `${formOf(i, a)} with ${formOf(j, b)}`,
  )
  const taken = new Set(cases.map((c) => c.name))
  const append = rowsToAppend(sizes, rows).map((row) => {
    const forms = Object.fromEntries(
      shapeDimensionNames.map((d, index) => [d, formsOf(d)[row[index] ?? 0]]),
    ) as ShapeForms
    const base = nameOf(forms)
    let name = base
    for (let n = 2; taken.has(name); n++) name = `${base}-${n}`
    taken.add(name)
    return { name, forms }
  })
  return { missing, append }
}

/**
 * {@link proposedCases} in words for a failing test: the pairs missing, then the cases to append,
 * one a line, as the list in src/api/shape-cases.ts writes them. Empty when the set is pairwise.
 *
 * @example expect(coverageReport(shapeCases)).toBe('')
 */
export function coverageReport(cases: readonly ShapeCase[]): string {
  const { missing, append } = proposedCases(cases)
  if (missing.length === 0) return ''
  return [
    `The covering set of answer shapes holds no case for ${missing.length} pairs of forms: ${missing.slice(0, 12).join('; ')}${missing.length > 12 ? '; …' : ''}.`,
    `Append ${append.length === 1 ? 'this case' : `these ${append.length} cases`} to the end of committedCases in src/api/shape-cases.ts (names by the rule of today's; choose better ones before they ship), then \`npm run docs:shapes\`:`,
    ...append.map(({ name, forms }) => caseSource(name, forms)),
  ].join('\n')
}
