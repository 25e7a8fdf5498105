import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { shapeCases } from '../../src/api/shape-cases.ts'
import { codeBlocks, docSection } from '../support/docs.ts'
import { shapesGuide, shapesGuidePath } from '../support/shapes-doc.ts'

const guide = 'docs/guides/answer-shapes.md'
const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8')

/** The guide docs/guides/answer-shapes.md says what the table of answer shapes declares. */
describe('the answer shapes guide', () => {
  it('lists each dimension, its forms and the cases from the table: run `npm run docs:shapes` after changing it', () => {
    expect(readFileSync(shapesGuidePath, 'utf8')).toBe(shapesGuide())
    expect(docSection(guide, '## Dimensions and their forms')).toContain(
      `The covering set has **${shapeCases.length} cases**`,
    )
  })

  it('gives as its vitest example the file examples/answer-shapes runs, as it is', () => {
    expect(codeBlocks(guide, '## One test per case', 'ts')).toEqual([
      read('examples/answer-shapes/greeting.test.ts'),
    ])
  })

  it("says in the behaviour guide that every nullable field present is the full shape's rule", () => {
    const row = read('docs/guides/behaviour.md')
      .split('\n')
      .find((line) => line.startsWith('| Profile fields never set'))
    expect(row).toContain('the rule of the `full` answer shape')
    expect(row).toContain('(answer-shapes.md)')
  })
})
