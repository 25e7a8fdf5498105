import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  formsOf,
  optionalProfileFields,
  type ShapeDimensionName,
  type ShapeForms,
  shapeDimensionNames,
} from '../../src/api/answer-shapes.ts'
import { type ShapeCase, shapeCases } from '../../src/api/shape-cases.ts'
import { propertyParameters } from '../support/properties.ts'
import {
  coverageReport,
  missingPairs,
  proposedCases,
  rowsToAppend,
} from '../support/shape-case-proposals.ts'

/**
 * The covering set as it was committed when the list stopped being generated: each case by its
 * name, in its place, with its form of each of the dimensions of then. Users' tests, data files and
 * state files name these cases: none may go, move, or change a form (a dimension added since
 * leaves them as they were; see src/api/shape-cases.ts).
 */
const committedDimensions = [
  'lastActive registeredAt firstName lastName country region sex ageBracket learningPathId',
  'learningPathName learningPathStartDate learningPathDueDate learningPathCompletedAt',
  'offset fraction groupOrder newUser',
]
  .join(' ')
  .split(' ') as ShapeDimensionName[]
const committedCases = `
nulls                                      null   null   null   null   null   null   null   null   null   null   null   null   null   utc  whole    stored   registered
absent-fraction-reversed-unregistered      absent absent absent absent absent absent absent absent absent absent absent absent absent utc  fraction reversed unregistered
mixed-z-fraction-unregistered              null   absent null   absent null   absent null   absent null   absent null   absent null   z    fraction stored   unregistered
mixed-z-reversed                           absent null   absent null   absent null   absent null   absent null   absent null   absent z    whole    reversed registered
mixed-east-reversed-unregistered           null   null   absent absent null   null   absent absent null   null   absent absent null   east whole    reversed unregistered
mixed-east-fraction                        absent absent null   null   absent absent null   null   absent absent null   null   absent east fraction stored   registered
mixed-west-fraction-reversed-unregistered  null   null   null   null   absent absent absent absent null   null   null   null   absent west fraction reversed unregistered
mixed-west                                 absent absent absent absent null   null   null   null   absent absent absent absent null   west whole    stored   registered
mixed                                      null   absent absent absent absent absent absent absent absent null   null   null   null   utc  whole    stored   registered
mixed-fraction-reversed-unregistered       absent null   null   null   null   null   null   null   null   absent absent absent absent utc  fraction reversed unregistered
`
  .trim()
  .split('\n')
  .map((line) => {
    const [name, ...forms] = line.split(/ +/)
    return {
      name,
      forms: Object.fromEntries(committedDimensions.map((d, i) => [d, forms[i]])),
    }
  })

describe('the covering set of answer shapes', () => {
  it('holds every pair of forms of two different dimensions of the table as declared', () => {
    const dimension = fc.constantFrom(...shapeDimensionNames)
    const pairs = fc
      .tuple(dimension, dimension)
      .filter(([a, b]) => a !== b)
      .chain(([a, b]) =>
        fc.tuple(
          fc.constant(a),
          fc.constantFrom(...formsOf(a)),
          fc.constant(b),
          fc.constantFrom(...formsOf(b)),
        ),
      )
    fc.assert(
      fc.property(pairs, ([a, formA, b, formB]) => {
        expect(shapeCases.some((c) => c.forms[a] === formA && c.forms[b] === formB)).toBe(true)
      }),
      propertyParameters(),
    )
  })

  it('holds every form of every dimension', () => {
    for (const name of shapeDimensionNames) {
      expect(new Set(shapeCases.map((c) => c.forms[name]))).toEqual(new Set(formsOf(name)))
    }
  })

  it('is at most a dozen cases, each named by lowercase words joined by -, no name twice', () => {
    const names = shapeCases.map((c) => c.name)
    expect(names.length).toBeLessThanOrEqual(12)
    expect(new Set(names).size).toBe(names.length)
    for (const name of names) expect(name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/)
    expect(names.slice(0, 2)).toEqual(['nulls', 'absent-fraction-reversed-unregistered'])
  })

  it('keeps the cases committed before, each in its place with its forms: the list only grows', () => {
    expect(committedCases).toHaveLength(10)
    const kept = shapeCases.slice(0, committedCases.length).map((c) => ({
      name: c.name,
      forms: Object.fromEntries(committedDimensions.map((d) => [d, c.forms[d]])),
    }))
    expect(kept).toEqual(committedCases)
  })

  it('holds every pair of forms, exhaustively: else it names the pairs and the cases to append', () => {
    expect(coverageReport(shapeCases)).toBe('')
  })
})

describe('the cases proposed to append', () => {
  const table = fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 12 })
  const tableAndRows = table.chain((sizes) =>
    fc.tuple(
      fc.constant(sizes),
      fc.array(fc.tuple(...sizes.map((size) => fc.integer({ min: 0, max: size - 1 }))), {
        maxLength: 8,
      }),
    ),
  )

  it('make any list pairwise, appended after it, whatever it held before', () => {
    fc.assert(
      fc.property(tableAndRows, ([sizes, rows]) => {
        const added = rowsToAppend(sizes, rows)
        expect(missingPairs(sizes, [...rows, ...added])).toEqual([])
        for (const row of added) {
          expect(row).toHaveLength(sizes.length)
          row.forEach((form, d) => {
            expect(form).toBeGreaterThanOrEqual(0)
            expect(form).toBeLessThan(sizes[d] ?? 0)
          })
        }
        // Every form of a lone dimension too, which has no pair to hold it.
        if (sizes.length === 1) {
          expect(new Set([...rows, ...added].map((row) => row[0])).size).toBe(sizes[0])
        }
        // A list that is pairwise already gets nothing.
        expect(rowsToAppend(sizes, [...rows, ...added])).toEqual([])
      }),
      propertyParameters(0.2),
    )
  })

  it('name the pairs missing and the cases that hold them, as the list writes them: without any one case', () => {
    let reported = 0
    for (const [i, left] of shapeCases.entries()) {
      const rest = shapeCases.filter((_, j) => j !== i)
      const { missing, append } = proposedCases(rest)
      // Appended, they make the list pairwise again; their names are new and well formed.
      expect(coverageReport([...rest, ...append]), left.name).toBe('')
      const names = [...rest, ...append].map((c) => c.name)
      expect(new Set(names).size, left.name).toBe(names.length)
      for (const { name } of append) expect(name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/)
      const report = coverageReport(rest)
      if (missing.length === 0) {
        expect(report).toBe('')
        continue
      }
      const [pairs = '', , ...lines] = report.split('\n')
      const opening = `The covering set of answer shapes holds no case for ${missing.length} pairs of forms: ${missing[0]}`
      expect(pairs.slice(0, opening.length)).toBe(opening)
      // Each line is a case of the list's syntax that means the case proposed.
      expect(lines.map(asWritten)).toEqual(append)
      reported++
    }
    // Some case is the only one to hold a pair: the report was read.
    expect(reported).toBeGreaterThan(0)
  })
})

/** A line of a report, read as the list in src/api/shape-cases.ts reads its cases. */
function asWritten(line: string): ShapeCase {
  const absent = (...fields: string[]) => Object.fromEntries(fields.map((f) => [f, 'absent']))
  const { name, forms } = new Function(
    'absent',
    'optionalProfileFields',
    `return ${line.trim().replace(/,$/, '')}`,
  )(absent, optionalProfileFields) as { name: string; forms: Partial<ShapeForms> }
  return {
    name,
    forms: Object.fromEntries(
      shapeDimensionNames.map((d) => [d, forms[d] ?? formsOf(d)[0]]),
    ) as ShapeForms,
  }
}
