import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify, stripVTControlCharacters } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { repoRoot } from '../support/docs.ts'

/**
 * The contract coverage of a vitest suite whose test files create their own mocks: the setup file
 * hands each file's mocks' coverage to the reporter, which adds them up, prints the table at the
 * end of the run, writes JSON and Markdown when asked and fails the run under a threshold. Run as
 * a suite of its own, in a scratch folder, on the repository's sources.
 */
const run = promisify(execFile)
const scratch = mkdtempSync(join(tmpdir(), 'identify-api-mock-coverage-'))
symlinkSync(join(repoRoot, 'node_modules'), join(scratch, 'node_modules'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

const source = (path: string) => JSON.stringify(join(repoRoot, path))

/** A test file that creates a mock and meets the identify answers `ids` name. */
const testFile = (ids: string[]) => `
import { expect, it } from 'vitest'
import { createMockApi } from ${source('src/root/index.ts')}

const api = createMockApi({ organisations: [{ orgId: 'acme', apiKeys: ['acme-key'] }] })
const identify = (id, key = 'acme-key') =>
  api.fetch('https://api.example.test/api/v1/users/identify', {
    method: 'POST',
    headers: { authorization: 'Bearer ' + key, 'content-type': 'application/json' },
    body: JSON.stringify({ id, orgId: 'acme' }),
  })

it('identifies', async () => {
  for (const id of ${JSON.stringify(ids)}) expect((await identify(id)).status).toBe(200)
  expect((await identify('x', 'wrong')).status).toBe(401)
})
`

writeFileSync(join(scratch, 'package.json'), JSON.stringify({ private: true, type: 'module' }))
writeFileSync(join(scratch, 'one.test.js'), testFile(['ada']))
writeFileSync(join(scratch, 'two.test.js'), testFile(['bo', 'bo']))
writeFileSync(
  join(scratch, 'vitest.config.js'),
  `import { defineConfig } from 'vitest/config'
import { IdentifyApiMockCoverage } from ${source('src/harness/vitest-coverage.ts')}

export default defineConfig({
  test: {
    include: ['*.test.js'],
    setupFiles: [${source('src/harness/vitest-coverage-setup.ts')}],
    reporters: ['default', new IdentifyApiMockCoverage()],
  },
})
`,
)

/** `vitest run` in the scratch folder: its exit code and its output, without colours. */
async function vitest(env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await run(join(repoRoot, 'node_modules/.bin/vitest'), ['run'], {
      cwd: scratch,
      env: { ...process.env, NO_COLOR: '1', ...env },
    })
    return { code: 0, output: stripVTControlCharacters(stdout + stderr) }
  } catch (error) {
    const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string }
    return { code, output: stripVTControlCharacters(stdout + stderr) }
  }
}

describe('identify-api-mock/vitest-coverage, with its setup file', () => {
  it('adds up every file’s mocks, prints the table, writes JSON and Markdown, and fails under a threshold', async () => {
    const json = join(scratch, 'out', 'coverage.json')
    const markdown = join(scratch, 'out', 'coverage.md')
    const passing = await vitest({
      IDENTIFY_API_MOCK_COVERAGE_JSON: json,
      IDENTIFY_API_MOCK_COVERAGE_MARKDOWN: markdown,
      IDENTIFY_API_MOCK_COVERAGE_THRESHOLDS: 'identify=50',
      IDENTIFY_API_MOCK_COVERAGE_NEVER_MET: 'list',
    })
    expect(passing.code, passing.output).toBe(0)
    expect(passing.output).toMatch(/the clients met 3 of \d+ answers the API may give/)
    expect(passing.output).toMatch(/identify\s+3\/6\s+50 %/)
    expect(passing.output).toMatch(/Never met:\n(?:.*\n)*\s+identify\.400\s+400 Invalid request/)
    const report = JSON.parse(readFileSync(json, 'utf8')) as {
      items: { id: string; count: number }[]
    }
    const count = (id: string) => report.items.find((item) => item.id === id)?.count
    expect([
      count('identify.200.created'),
      count('identify.200.updated'),
      count('identify.401'),
    ]).toEqual([2, 1, 2])
    expect(readFileSync(markdown, 'utf8')).toContain('| identify | 3 | 6 | 50 |')

    const failing = await vitest({ IDENTIFY_API_MOCK_COVERAGE_THRESHOLDS: 'identify=100,delete=1' })
    expect(failing.code).toBe(1)
    // The run's last lines, after vitest's summary and the table (its never-met list in counts).
    expect(failing.output.trimEnd().split('\n').slice(-4)).toEqual([
      'identify-api-mock: contract coverage below its threshold:',
      '  identify: 50 % of its answers met (3/6), below 100 %',
      '  delete: 0 % of its answers met (0/5), below 1 %',
      'identify-api-mock: the run fails (exit code 1), however its tests went',
    ])
    expect(failing.output).toMatch(/\nNever met: \d+ \(identify 3, delete 5, /)
    expect(failing.output).not.toContain('identify.400')
  }, 120_000)

  it('stops before any test on a threshold of no group, in one line', async () => {
    const typo = await vitest({ IDENTIFY_API_MOCK_COVERAGE_THRESHOLDS: 'identify=50,delet=10' })
    expect(typo.code).toBe(1)
    expect(typo.output).toContain(
      'identify-api-mock: IDENTIFY_API_MOCK_COVERAGE_THRESHOLDS: no group "delet" (the groups are identify, delete, answer-shapes, web-view, webhooks, failures)\n',
    )
    expect(typo.output).not.toMatch(/✓|Test Files|Unhandled|❯/)
  }, 120_000)
})
