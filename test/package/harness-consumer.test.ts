import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify, stripVTControlCharacters } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { containers, noContainers } from '../support/container.ts'
import { codeBlocks, repoRoot } from '../support/docs.ts'

/**
 * The harness entries as a consumer receives them, from the packed package in scratch projects
 * outside the repository: today's vitest with four workers on the shared server, eight test files
 * each with its own tenant, three runs in a row (the many-tests guide's config and test file as
 * they stand), and the same with jest; and the Testcontainers module with only the package, `testcontainers` and the
 * engine, its image built from the installed package (the container guide's block as it stands).
 */
const run = promisify(execFile)
const scratch = mkdtempSync(join(tmpdir(), 'identify-api-mock-harness-'))
const node26 = join(repoRoot, 'node_modules/node/bin/node')
const env = { ...process.env, PATH: `${dirname(node26)}:${process.env.PATH}`, NO_COLOR: '1' }
/** npm, from the shared cache where it can; `warnings` keeps npm's warnings in its stderr. */
const npm = (args: string[], cwd: string, { warnings = false } = {}) =>
  run(
    'npm',
    [
      ...args,
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      `--loglevel=${warnings ? 'warn' : 'error'}`,
    ],
    { cwd, env, maxBuffer: 1 << 26 },
  )

const [vitestConfig = '', testFile = ''] = codeBlocks(
  'docs/guides/many-tests.md',
  '## One server for every vitest worker',
  'ts',
)
const [containerBlock = ''] = codeBlocks('docs/guides/container.md', '## Testcontainers', 'ts')
const skipContainers =
  noContainers ??
  (process.env.DOCKER_HOST === undefined ? 'no DOCKER_HOST: a Docker-compatible socket' : undefined)

/** A scratch project named `name` with `files`, an ES-module project as the guides assume. */
function project(name: string, files: Record<string, string>) {
  const dir = join(scratch, name)
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ private: true, type: 'module' }))
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true })
    writeFileSync(join(dir, file), text)
  }
  return dir
}

describe('the harness entries of the packed package', () => {
  let tarball = ''
  beforeAll(async () => {
    const { stdout } = await npm(['pack', '--pack-destination', scratch], repoRoot)
    tarball = join(scratch, stdout.trim().split('\n').at(-1) ?? '')
  }, 300_000)
  afterAll(() => rm(scratch, { recursive: true, force: true }), 120_000)

  it('runs 8 test files in 4 vitest workers on one shared server, a tenant each, 3 runs in a row', async () => {
    const specs = Object.fromEntries(
      Array.from({ length: 8 }, (_, i) => [`tenant-${i + 1}.spec.ts`, testFile]),
    )
    const dir = project('vitest', { 'vitest.config.ts': vitestConfig, ...specs })
    const installed = await npm(['install', '-D', 'vitest', tarball], dir, { warnings: true })
    // npm 11 names the package's prepare script as not covered by allowScripts; the README's
    // line for a tarball records the denial, and the warning is gone.
    expect(installed.stderr).toMatch(/identify-api-mock@[\d.]+ \(prepare: npm run build\)/)
    await npm(['install-scripts', 'deny', 'identify-api-mock'], dir)
    expect((await npm(['install'], dir, { warnings: true })).stderr).not.toMatch(/install-scripts/)
    for (let round = 1; round <= 3; round++) {
      const { stdout } = await run(
        node26,
        ['node_modules/vitest/vitest.mjs', 'run', '--maxWorkers', '4'],
        { cwd: dir, env },
      )
      const report = stripVTControlCharacters(stdout)
      expect({ round, files: report.match(/Test Files +(.*)/)?.[1] }).toEqual({
        round,
        files: '8 passed (8)',
      })
      expect(report).toMatch(/Tests +24 passed \(24\)/)
    }
  }, 600_000)

  it('runs 8 test files in 4 jest workers on one shared server, a tenant each, 3 runs in a row', async () => {
    // The example's test file as it stands, in a project whose config names the entries by package.
    const spec = readFileSync(
      join(repoRoot, 'examples/jest-shared-server/tenant-1.spec.ts'),
      'utf8',
    )
    const specs = Object.fromEntries(
      Array.from({ length: 8 }, (_, i) => [`tenant-${i + 1}.spec.ts`, spec]),
    )
    const config = `export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '\\\\.ts$': ['babel-jest', { presets: ['@babel/preset-typescript'] }] },
  globalSetup: 'identify-api-mock/jest-server',
  globalTeardown: 'identify-api-mock/jest-server-teardown',
  globals: { identifyApiMockServer: { seed: 7 } },
}
`
    const dir = project('jest', { 'jest.config.js': config, ...specs })
    await npm(['install', '-D', 'jest@30', '@babel/preset-typescript@7', tarball], dir)
    for (let round = 1; round <= 3; round++) {
      const { stderr } = await run(
        node26,
        ['--experimental-vm-modules', 'node_modules/jest/bin/jest.js', '--ci', '--maxWorkers', '4'],
        { cwd: dir, env },
      )
      expect({ round, suites: stderr.match(/Test Suites: +(.*)/)?.[1] }).toEqual({
        round,
        suites: '8 passed, 8 total',
      })
      expect(stderr).toMatch(/Tests: +16 passed, 16 total/)
    }
  }, 600_000)

  it.skipIf(skipContainers !== undefined)(
    `builds the image from the installed package and starts it with only the package, testcontainers and the engine${skipContainers ? ` (skipped: ${skipContainers})` : ''}`,
    async () => {
      const data = {
        organisations: [{ orgId: 'acme', apiKeys: ['acme-key'] }],
        users: [{ orgId: 'acme', id: 'left', registrationStatus: 'archived' }],
      }
      // A tag of its own: the repository's image, which other tests run, stays as it is.
      const tag = `identify-api-mock-from-package-${process.pid}`
      const identify = `const identified = await fetch(\`\${baseUrl}/api/v1/users/identify\`, {
  method: 'POST',
  headers: { authorization: \`Bearer \${apiKey}\`, 'content-type': 'application/json' },
  body: JSON.stringify({ id: 'left', orgId: 'acme' }),
})
console.log(JSON.stringify({ baseUrl, apiKey, tenant: tenant.orgId, status: identified.status, answer: await identified.json() }))
`
      const script = containerBlock
        .replace("buildImage('identify-api-mock')", `buildImage(${JSON.stringify(tag)})`)
        .replace('await mock.stop()', `${identify}await mock.stop()`)
      expect(script).toContain(tag)
      const dir = project('testcontainers', {
        'start.ts': script,
        'test/data.json': JSON.stringify(data),
      })
      await npm(['install', tarball, 'testcontainers'], dir)
      try {
        const { stdout } = await run(node26, ['start.ts'], {
          cwd: dir,
          env: { ...env, TESTCONTAINERS_RYUK_DISABLED: 'true' },
        })
        const printed = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}')
        expect(printed).toEqual({
          baseUrl: expect.stringMatching(/^http:\/\/[\w.:[\]-]+:\d+$/),
          apiKey: 'acme-key',
          tenant: expect.stringMatching(/^tenant-/),
          status: 200,
          answer: expect.objectContaining({
            data: expect.objectContaining({ registrationStatus: 'archived' }),
          }),
        })
      } finally {
        await containers(['rmi', '--force', tag]).catch(() => '')
      }
    },
    600_000,
  )
})
