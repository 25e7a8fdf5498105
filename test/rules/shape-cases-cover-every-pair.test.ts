import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { formsOf, shapeDimensionNames } from '../../src/api/answer-shapes.ts'
import { pairwiseRows } from '../../src/api/pairwise.ts'
import { shapeCases } from '../../src/api/shape-cases.ts'
import { propertyParameters } from '../support/properties.ts'

/** The pairs of forms of two different dimensions that no row holds together. */
function uncoveredPairs(sizes: readonly number[], rows: readonly (readonly number[])[]) {
  const missing: string[] = []
  sizes.forEach((si, i) => {
    sizes.forEach((sj, j) => {
      if (j <= i) return
      for (let a = 0; a < si; a++) {
        for (let b = 0; b < sj; b++) {
          if (!rows.some((row) => row[i] === a && row[j] === b)) missing.push(`${i}=${a},${j}=${b}`)
        }
      }
    })
  })
  return missing
}

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

  it('is made the same way every time (stable for a version)', () => {
    const sizes = shapeDimensionNames.map((name) => formsOf(name).length)
    expect(pairwiseRows(sizes)).toEqual(pairwiseRows(sizes))
  })
})

describe('pairwiseRows', () => {
  it('covers every pair for any table, so that a new row in the table keeps the set pairwise', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 5 }), { maxLength: 12 }), (sizes) => {
        const rows = pairwiseRows(sizes)
        expect(uncoveredPairs(sizes, rows)).toEqual([])
        for (const row of rows) {
          expect(row).toHaveLength(sizes.length)
          row.forEach((form, d) => {
            expect(form).toBeGreaterThanOrEqual(0)
            expect(form).toBeLessThan(sizes[d] ?? 0)
          })
        }
        // Every form of a lone dimension too, which has no pair to hold it.
        if (sizes.length === 1) expect(rows).toHaveLength(sizes[0] ?? 0)
      }),
      propertyParameters(0.2),
    )
  })
})
