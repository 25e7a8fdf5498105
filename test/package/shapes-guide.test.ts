import { execFile, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { shapeCases } from '../../src/api/shape-cases.ts'
import { startServer } from '../../src/server/server.ts'
import { codeBlocks, docSection, repoRoot } from '../support/docs.ts'
import { shapesDoc } from '../support/shapes-doc.ts'

const guide = 'docs/guides/answer-shapes.md'
const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8')

/** The guide docs/guides/answer-shapes.md says what the table of answer shapes declares. */
describe('the answer shapes guide', () => {
  it('lists each dimension, its forms and the cases from the table: run `npm run docs:shapes` after changing it', () => {
    expect(readFileSync(shapesDoc.path, 'utf8')).toBe(shapesDoc.whole())
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

const pytest = spawnSync('python3', ['-m', 'pytest', '--version']).status === 0

describe.skipIf(!pytest)(
  `the guide's pytest example${pytest ? '' : ' (skipped: no python3 with pytest here)'}`,
  () => {
    it('runs once per case against the server, and passes', async () => {
      const [block = ''] = codeBlocks(guide, '## One test per case', 'python')
      const folder = mkdtempSync(join(tmpdir(), 'shapes-pytest-'))
      const server = await startServer({ port: 0 })
      try {
        writeFileSync(join(folder, 'test_shapes.py'), block)
        const { stdout } = await promisify(execFile)(
          'python3',
          ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', 'test_shapes.py'],
          {
            cwd: folder,
            env: {
              ...process.env,
              IDENTIFY_API_URL: server.url,
              PYTHONPATH: join(repoRoot, 'examples/python-backend'),
              PYTHONDONTWRITEBYTECODE: '1',
            },
          },
        )
        expect(stdout).toContain(`${shapeCases.length} passed`)
      } finally {
        await server.close()
        rmSync(folder, { recursive: true, force: true })
      }
    }, 60_000)
  },
)
