import { execFile, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { failureCases } from '../../src/core/failure-cases.ts'
import { startServer } from '../../src/server/server.ts'
import { codeBlocks, docSection } from '../support/docs.ts'
import { failuresGuide, failuresGuidePath } from '../support/failures-doc.ts'

const guide = 'docs/guides/failures.md'
const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8')

/** The guide docs/guides/failures.md says what the kinds table and the case list declare. */
describe('the failures guide', () => {
  it('lists each kind and each case from the tables: run `npm run docs:failures` after changing them', () => {
    expect(readFileSync(failuresGuidePath, 'utf8')).toBe(failuresGuide())
    expect(docSection(guide, '## The failure cases')).toContain(
      `The failure cases are **${failureCases.length} cases**`,
    )
    expect(docSection(guide, '## The kinds')).toContain('| `hang` |')
  })

  it('gives as its vitest example the file examples/deletion-job runs, as it is', () => {
    expect(codeBlocks(guide, '## One test per case', 'ts')).toEqual([
      read('examples/deletion-job/every-failure.test.ts'),
    ])
  })

  it('is linked from the behaviour guide and the README', () => {
    expect(read('docs/guides/behaviour.md')).toContain('(failures.md)')
    expect(read('README.md')).toContain('(docs/guides/failures.md)')
  })
})

const pytest = spawnSync('python3', ['-m', 'pytest', '--version']).status === 0

describe.skipIf(!pytest)(
  `the guide's pytest example${pytest ? '' : ' (skipped: no python3 with pytest here)'}`,
  () => {
    it('runs once per failure case of delete against the server, and passes', async () => {
      const [block = ''] = codeBlocks(guide, '## One test per case', 'python')
      const folder = mkdtempSync(join(tmpdir(), 'failures-pytest-'))
      const server = await startServer({ port: 0 })
      try {
        writeFileSync(join(folder, 'test_failures.py'), block)
        const { stdout } = await promisify(execFile)(
          'python3',
          ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', 'test_failures.py'],
          {
            cwd: folder,
            env: { ...process.env, IDENTIFY_API_URL: server.url, PYTHONDONTWRITEBYTECODE: '1' },
          },
        )
        const cases = failureCases.filter((c) => c.operation === 'delete' && c.kind !== 'status')
        expect(stdout).toContain(`${cases.length} passed`)
      } finally {
        await server.close()
        rmSync(folder, { recursive: true, force: true })
      }
    }, 60_000)
  },
)
