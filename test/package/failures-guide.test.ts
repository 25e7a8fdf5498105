import { execFile, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { connectMockApi } from '../../src/client/connect-mock-api.ts'
import { failureCases } from '../../src/core/failure-cases.ts'
import { startServer } from '../../src/server/server.ts'
import { type CliProcess, runCli, waitForOutput } from '../support/cli-process.ts'
import { codeBlocks, docSection, runBlock } from '../support/docs.ts'
import { failuresDocs } from '../support/failures-doc.ts'

const guide = 'docs/guides/failures.md'
const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8')

/** The guide docs/guides/failures.md says what the kinds table and the case list declare. */
describe('the failures guide', () => {
  it('lists each kind and each case from the tables: run `npm run docs:failures` after changing them', () => {
    for (const block of failuresDocs) {
      expect(readFileSync(block.path, 'utf8')).toBe(block.whole())
    }
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

describe("the guide's chaos recipes", () => {
  it('starts each development server of the shell block, its chaos as the line sets it', async () => {
    const [block = ''] = codeBlocks(guide, '## Chaos', 'sh')
    const lines = block.trim().split('\n')
    expect(lines.length).toBeGreaterThan(1)
    for (const line of lines) {
      const [npx, bin, ...args] = line.split(/\s+/)
      expect([npx, bin]).toEqual(['npx', 'identify-api-mock'])
      const cli: CliProcess = runCli([...args, '--port', '0'])
      try {
        const [, url = ''] = await waitForOutput(cli, /listening on (http:\/\/\S+)/)
        const [, printed = ''] = await waitForOutput(cli, /--chaos-seed (\d+);/)
        const flag = (name: string) => args[args.indexOf(name) + 1]
        const chaos = await connectMockApi(url).chaos()
        expect(chaos).toMatchObject({ rate: Number(flag('--chaos')), seed: Number(printed) })
        if (args.includes('--chaos-seed')) expect(chaos?.seed).toBe(Number(flag('--chaos-seed')))
        if (args.includes('--chaos-cases')) {
          expect(chaos?.cases).toEqual(flag('--chaos-cases')?.split(','))
        }
      } finally {
        cli.child.kill('SIGKILL')
        await cli.exit
      }
    }
  }, 60_000)

  it('replays a seed: the same calls meet the same failures, and some do', async () => {
    const [block = ''] = codeBlocks(guide, '## Chaos', 'ts')
    const { first, again } = (await runBlock(block, ['first', 'again'])) as {
      first: string[]
      again: string[]
    }
    expect(first).toHaveLength(50)
    expect(again).toEqual(first)
    expect(first.filter((met) => ['500', '503', 'TypeError'].includes(met)).length).toBeGreaterThan(
      0,
    )
  }, 60_000)
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
