import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { coverageItems } from '../../src/core/coverage.ts'
import { coverageDocs } from '../support/coverage-doc.ts'
import { docSection, readDoc } from '../support/docs.ts'

const guide = 'docs/guides/coverage.md'

/** The guide docs/guides/coverage.md says what the tables give and what a run prints. */
describe('the coverage guide', () => {
  it('lists the answer space as the tables give it, and shows what the code reports and prints of it: run `npm run docs:coverage` after changing one', () => {
    for (const block of coverageDocs) {
      expect(readFileSync(block.path, 'utf8')).toBe(block.whole())
    }
  })

  it("names as an item only an item of today's tables", () => {
    const ids = new Set(coverageItems.map((item) => item.id))
    const prefixes = [...new Set(coverageItems.map((item) => item.id.split('.')[0]))]
    const named = [...readDoc(guide).matchAll(/[`"]((?:[\w-]+)(?:\.[\w-]+)+)[`"]/g)]
      .map((m) => m[1] ?? '')
      .filter((id) => prefixes.includes(id.split('.')[0] ?? '') && !id.endsWith('.ts'))
    expect(named.length).toBeGreaterThan(ids.size)
    expect(named.filter((id) => !ids.has(id))).toEqual([])
  })

  it('shows the end of a run with the groups and the size of the answer space of today', () => {
    const shown = docSection(guide, '## At the end of a run')
    expect(shown).toContain(
      `the clients met 11 of ${coverageItems.length} answers the API may give`,
    )
    // Each group of today's tables, with its number of items.
    const groups = [...new Set(coverageItems.map((item) => item.group))]
    for (const group of groups) {
      const total = coverageItems.filter((item) => item.group === group).length
      expect(shown).toMatch(new RegExp(`\\n  ${group} +\\d+/${total} `))
    }
  })
})
