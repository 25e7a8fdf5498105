import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { coverageItems } from '../../src/core/coverage.ts'
import { coverageDoc } from '../support/coverage-doc.ts'
import { docSection } from '../support/docs.ts'

const guide = 'docs/guides/coverage.md'

/** The guide docs/guides/coverage.md says what the tables give and what a run prints. */
describe('the coverage guide', () => {
  it('lists the answer space as the tables give it: run `npm run docs:coverage` after changing one', () => {
    expect(readFileSync(coverageDoc.path, 'utf8')).toBe(coverageDoc.whole())
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
