import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

/** The guide's examples are the files `examples/many-tests` runs, as they are. */
const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8')
const guide = read('docs/guides/many-tests.md')
const blocks = (lang: string) =>
  [...guide.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((m) => m[1])

describe('docs/guides/many-tests.md', () => {
  it('shows the example data file and the tenant helper exactly as the example test runs them', () => {
    expect(blocks('json')).toEqual([read('examples/many-tests/data.json')])
    expect(blocks('ts')).toEqual([read('examples/many-tests/tenant.ts')])
  })

  it('shows refusal lines in the form serve prints them', () => {
    const [lines = ''] = blocks('text')
    for (const line of lines.trim().split('\n')) {
      expect(line.trim()).toMatch(
        /^identify-api-mock: data\.json: users\[\d+\]\.[a-zA-Z]+(\[\d+\])?: /,
      )
    }
  })
})
