import { execFile, spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify, stripVTControlCharacters } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { codeBlocks, packedPackageBlocks, repoRoot } from '../support/docs.ts'

/**
 * The package as a consumer receives it: packed, installed from the tarball into a scratch project
 * outside the repository with its own msw and vitest, and used by following the README and the
 * testing guide literally, on each Node/msw combination the README claims.
 */
const run = promisify(execFile)
const repo = repoRoot
const [readmeQuickStart, fetchSection, fetchCommands, matchersSection, jestSh, jestJs, jestTs] =
  packedPackageBlocks.map(({ file, heading, lang }) => codeBlocks(file, heading, lang))
const [quickStart = ''] = readmeQuickStart ?? []
const [fetchOnly = '', openapiFetch = ''] = fetchSection ?? []
const [openapiCommands = ''] = fetchCommands ?? []
const [vitestConfig = '', matchersTest = ''] = matchersSection ?? []
const [jestInstall = ''] = jestSh ?? []
const [jestConfig = ''] = jestJs ?? []
const [jestHandlers = '', jestFetch = ''] = jestTs ?? []
/** The vitest files of a scratch project, each a README block as it stands. */
const vitestFiles = {
  'quick-start.test.ts': quickStart,
  'mock-fetch.test.ts': fetchOnly,
  'openapi-fetch.test.ts': openapiFetch,
  'vitest.config.ts': vitestConfig,
  'matchers.test.ts': matchersTest,
}
const vitestTests = Object.keys(vitestFiles).filter((name) => name.endsWith('.test.ts'))

/** Runs each line of a README shell block in `cwd`, as a reader pasting it would. */
async function runLines(block: string, cwd: string) {
  for (const line of block.split('\n').filter((l) => l.trim() && !l.startsWith('#'))) {
    await run('sh', ['-c', line], { cwd, maxBuffer: 1 << 26 })
  }
}
const vitestVersion = JSON.parse(
  readFileSync(join(repo, 'node_modules/vitest/package.json'), 'utf8'),
).version

const combinations = [
  { msw: '3', node: '22' },
  { msw: '3', node: '24' },
  { msw: '2', node: '22' },
  { msw: '2', node: '24' },
] as const

const npm = (args: string[], cwd: string) =>
  run('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd, maxBuffer: 1 << 26 })

describe('the packed package in a consumer project', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'identify-api-mock-consumer-'))
  let tarball = ''

  beforeAll(async () => {
    const { stdout } = await npm(['pack', '--pack-destination', scratch], repo)
    tarball = join(scratch, stdout.trim().split('\n').at(-1) ?? '')
    const nodes = join(scratch, 'nodes')
    mkdirSync(nodes)
    writeFileSync(
      join(nodes, 'package.json'),
      JSON.stringify({ private: true, allowScripts: { node: true } }),
    )
    await npm(['install', 'node22@npm:node@22'], nodes)
  }, 300_000)
  // Three projects' node_modules: removing them takes longer than a hook's default 10 s.
  afterAll(() => rm(scratch, { recursive: true, force: true }), 120_000)

  it('contains compiled JavaScript, declarations, the bin and the license, and nothing else', async () => {
    const { stdout } = await run('tar', ['-tzf', tarball])
    const files = stdout.trim().split('\n')
    expect(files).toContain('package/dist/src/root/index.js')
    expect(files).toContain('package/dist/src/root/index.d.ts')
    expect(files).toContain('package/dist/src/server/cli.js')
    expect(files).toContain('package/LICENSE')
    expect(
      files.filter(
        (f) => !/^package\/(dist\/.*\.(js|d\.ts)|LICENSE|README\.md|package\.json)$/.test(f),
      ),
    ).toEqual([])
    expect(files.some((f) => /\.test\.|\/test\/|\.ts$/.test(f.replace(/\.d\.ts$/, '')))).toBe(false)
  })

  it('passes publint', async () => {
    const { stdout } = await run('npx', ['publint', tarball], { cwd: repo })
    expect(stdout).toMatch(/All good!/)
  }, 60_000)

  for (const msw of ['3', '2'] as const) {
    describe(`with msw ${msw}`, () => {
      const project = join(scratch, `msw-${msw}`)
      beforeAll(async () => {
        mkdirSync(project)
        writeFileSync(
          join(project, 'package.json'),
          JSON.stringify({
            name: 'consumer',
            private: true,
            type: 'module',
            scripts: { test: 'vitest run' },
          }),
        )
        for (const [name, text] of Object.entries(vitestFiles)) {
          writeFileSync(join(project, name), text)
        }
        await npm(
          ['install', tarball, `msw@${msw}`, `vitest@${vitestVersion}`, 'typescript@7'],
          project,
        )
        await runLines(openapiCommands, project)
      }, 300_000)

      for (const { node } of combinations.filter((c) => c.msw === msw)) {
        it(`runs the docs' vitest suites on Node ${node}: quick start, api.fetch alone, openapi-fetch, matchers`, async () => {
          const binary =
            node === '22' ? join(scratch, 'nodes/node_modules/node22/bin/node') : process.execPath
          const { stdout: version } = await run(binary, ['--version'])
          expect(version).toMatch(new RegExp(`^v${node}\\.`))
          const { stdout } = await run(
            binary,
            [join(project, 'node_modules/vitest/vitest.mjs'), 'run'],
            {
              cwd: project,
            },
          )
          const report = stripVTControlCharacters(stdout)
          expect(report).toMatch(new RegExp(`Tests +${vitestTests.length} passed \\(`))
          for (const name of vitestTests) expect(report).toContain(`✓ ${name}`)
        }, 120_000)
      }

      it('type-checks the suites of the docs against the published declarations', async () => {
        writeFileSync(
          join(project, 'tsconfig.json'),
          JSON.stringify({
            compilerOptions: {
              strict: true,
              module: 'nodenext',
              target: 'es2023',
              noEmit: true,
              skipLibCheck: false,
              types: ['identify-api-mock/vitest'],
            },
            files: vitestTests,
          }),
        )
        await run(join(project, 'node_modules/.bin/tsc'), ['-p', project], { cwd: project })
      }, 120_000)

      it('plans a verify run from identify-api-mock/verify, the Node-only entry point', async () => {
        const script = [
          "import { planVerification } from 'identify-api-mock/verify'",
          "const plan = planVerification({ baseUrl: 'https://staging.example.test', apiKey: 'k', orgId: 'acme' })",
          'console.log(JSON.stringify({ requests: plan.requests.length, user: plan.throwawayUser.id }))',
        ].join('\n')
        const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
          cwd: project,
        })
        expect(JSON.parse(stdout)).toEqual({
          requests: 15,
          user: expect.stringMatching(/^verify-[0-9a-f]{32}$/),
        })
      }, 60_000)

      it('seeds a MockCore from identify-api-mock/advanced, the entry for a way in of your own', async () => {
        const script = [
          "import { MockCore } from 'identify-api-mock/advanced'",
          'const core = new MockCore({ seededOrganisations: 3 })',
          'await core.ready',
          'console.log(JSON.stringify(core.credentials.map((c) => c.orgId)))',
        ].join('\n')
        const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
          cwd: project,
        })
        expect(JSON.parse(stdout)).toEqual(['org-1', 'org-2', 'org-3'])
      }, 60_000)

      it('starts the bin with npx, from compiled JavaScript', async () => {
        // A process group of its own: npx runs the server as a child, which must stop with it.
        const child = spawn('npx', ['identify-api-mock', 'serve', '--port', '0', '--json'], {
          cwd: project,
          detached: true,
        })
        const exited = new Promise((resolve) => child.on('exit', resolve))
        try {
          const line = await new Promise<string>((resolve, reject) => {
            let out = ''
            child.stdout.on('data', (chunk) => {
              out += chunk
              if (out.includes('\n')) resolve(out.trim())
            })
            child.on('exit', (code) => reject(new Error(`exited with ${code}`)))
          })
          const { url } = JSON.parse(line)
          expect((await fetch(`${url}/__mock/health`)).status).toBe(200)
        } finally {
          if (child.pid) process.kill(-child.pid, 'SIGTERM')
          await exited
        }
      }, 60_000)
    })
  }
  describe('with jest 30 in ESM, as the README configures it', () => {
    const project = join(scratch, 'jest')
    beforeAll(async () => {
      mkdirSync(project)
      writeFileSync(
        join(project, 'package.json'),
        JSON.stringify({
          name: 'jest-consumer',
          private: true,
          type: 'module',
          scripts: { test: 'NODE_OPTIONS=--experimental-vm-modules jest' },
        }),
      )
      writeFileSync(join(project, 'jest.config.js'), jestConfig)
      writeFileSync(join(project, 'handlers.test.ts'), jestHandlers)
      writeFileSync(join(project, 'fetch.test.ts'), jestFetch)
      await npm(['install', tarball, 'msw@3'], project)
      await runLines(jestInstall, project)
    }, 300_000)

    it('passes a test with setupServer in jsdom and one with api.fetch', async () => {
      const { stderr } = await npm(['test'], project)
      expect(stderr).toMatch(/PASS .*handlers\.test\.ts/)
      expect(stderr).toMatch(/PASS .*fetch\.test\.ts/)
      expect(stderr).toMatch(/Tests: +2 passed, 2 total/)
    }, 120_000)
  })
})
