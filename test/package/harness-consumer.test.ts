import { execFile, spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify, stripVTControlCharacters } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { shapeCases } from '../../src/api/shape-cases.ts'
import { failureCases } from '../../src/core/failure-cases.ts'
import { containers, noContainers } from '../support/container.ts'
import { codeBlocks, jestReceiverOf, repoRoot } from '../support/docs.ts'
import { freePort } from '../support/free-port.ts'
import { python, pythonExamplePassed } from '../support/python-example.ts'

/**
 * The harness entries as a consumer receives them, from the packed package in scratch projects
 * outside the repository: today's vitest with four workers on the shared server, on the port an
 * environment variable gives (as a CI job with a port range does), eight test files each with its
 * own tenant and its own webhook receiver, which must get exactly its own file's events, five runs
 * in a row (the many-tests guide's config and test files as they stand), and the same with jest; each run ends with the table of its contract coverage, writes it as JSON and
 * Markdown when the environment asks, and fails under a threshold; a test file run without the
 * setup fails with the one line naming it; and the
 * Testcontainers module with only the package, `testcontainers` and the engine, its image built
 * from the installed package (the container guide's block as it stands).
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

const [vitestConfig = '', testFile = '', perCaseFile = '', perFailureCaseFile = ''] = codeBlocks(
  'docs/guides/many-tests.md',
  '## One server for every vitest worker',
  'ts',
)
const jestSection = '## One server for every jest worker'
const [jestConfig = ''] = codeBlocks('docs/guides/many-tests.md', jestSection, 'js')
const [jestSpec = ''] = codeBlocks('docs/guides/many-tests.md', jestSection, 'ts')
const [receiverFile = ''] = codeBlocks(
  'docs/guides/many-tests.md',
  '## A webhook receiver per test file',
  'ts',
)
const jestReceiverFile = jestReceiverOf(receiverFile)
const [containerBlock = ''] = codeBlocks('docs/guides/container.md', '## Testcontainers', 'ts')
const skipContainers =
  noContainers ??
  (process.env.DOCKER_HOST === undefined ? 'no DOCKER_HOST: a Docker-compatible socket' : undefined)

/** A test appended to each spec: its tenant is on the port the environment gave the server. */
const onThePort = `
it('is on the port IDENTIFY_API_MOCK_PORT gives', () => {
  expect(tenant.baseUrl).toBe(\`http://127.0.0.1:\${process.env.IDENTIFY_API_MOCK_PORT}\`)
})
`

/** Runs `args` to its end, failing or not: its exit code and what it printed. */
const runToEnd = (args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }) =>
  run(node26, args, options).then(
    ({ stdout, stderr }) => ({ code: 0, output: `${stdout}${stderr}` }),
    (error: { code: number; stdout: string; stderr: string }) => ({
      code: error.code,
      output: stripVTControlCharacters(`${error.stdout}${error.stderr}`),
    }),
  )

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

/** The variables that ask the end of a run for its contract coverage as JSON and Markdown. */
const coverageFiles = (dir: string) => ({
  IDENTIFY_API_MOCK_COVERAGE_JSON: join(dir, 'coverage/identify-api-mock.json'),
  IDENTIFY_API_MOCK_COVERAGE_MARKDOWN: join(dir, 'coverage/identify-api-mock.md'),
})

/**
 * The end of a run printed its contract coverage; in round 2, where {@link coverageFiles} asked,
 * the JSON and the Markdown hold the same figures.
 */
function expectCoverage(stdout: string, dir: string, round: number) {
  const printed = stripVTControlCharacters(stdout).match(
    /identify-api-mock: the clients met (\d+) of (\d+) answers the API may give/,
  )
  expect({ round, printed: printed?.slice(1).map(Number) }).toEqual({
    round,
    printed: [expect.any(Number), expect.any(Number)],
  })
  if (round !== 2) return
  const files = coverageFiles(dir)
  const json = JSON.parse(readFileSync(files.IDENTIFY_API_MOCK_COVERAGE_JSON, 'utf8'))
  expect([json.met, json.total]).toEqual(printed?.slice(1).map(Number))
  expect(json.met).toBeGreaterThan(2)
  expect(readFileSync(files.IDENTIFY_API_MOCK_COVERAGE_MARKDOWN, 'utf8')).toContain(
    `The clients met **${json.met} of ${json.total}** answers the API may give.`,
  )
}

/**
 * A threshold no suite of the guide's test files meets: their receivers answer every delivery at
 * once, so no retry nor any given-up delivery is met (2 event types and the first attempt of 5).
 */
const threshold = { IDENTIFY_API_MOCK_COVERAGE_THRESHOLDS: 'webhooks=100' }

/** The run under {@link threshold} failed, saying which group fell short. */
function expectBelowThreshold({ code, output }: { code: number; output: string }) {
  expect(code).toBe(1)
  expect(output).toContain('identify-api-mock: contract coverage below its threshold:')
  expect(output).toMatch(/webhooks: 60 % of its answers met \(3\/5\), below 100 %/)
}

/** The runs in a row of each runner: each receiver of each must get exactly its own deliveries. */
const rounds = 5

describe('the harness entries of the packed package', () => {
  let tarball = ''
  beforeAll(async () => {
    const { stdout } = await npm(['pack', '--pack-destination', scratch], repoRoot)
    tarball = join(scratch, stdout.trim().split('\n').at(-1) ?? '')
  }, 300_000)
  afterAll(() => rm(scratch, { recursive: true, force: true }), 120_000)

  it('installs from the tarball with npm 11 without an install-scripts warning', async () => {
    const dir = project('install', {})
    const { stderr } = await npm(['install', '-D', 'vitest', tarball], dir, { warnings: true })
    const { stdout: version } = await run('npm', ['--version'], { env })
    expect(Number(version.split('.')[0])).toBeGreaterThanOrEqual(11)
    expect(stderr).not.toMatch(/install-scripts|allowScripts/)
    expect(readFileSync(join(dir, 'package.json'), 'utf8')).not.toMatch(/allowScripts/)
  }, 300_000)

  it(`runs 8 test files in 4 vitest workers on one shared server on the port the environment gives, a tenant and a webhook receiver each, ${rounds} runs in a row`, async () => {
    // Each file's receiver gets exactly its file's events (the guide's receiver file checks it).
    const specs = Object.fromEntries(
      Array.from({ length: 8 }, (_, i) => [
        `tenant-${i + 1}.spec.ts`,
        `${receiverFile}${onThePort}`,
      ]),
    )
    const dir = project('vitest', {
      'vitest.config.ts': vitestConfig,
      ...specs,
      'identify.spec.ts': `${testFile}${onThePort}`,
      // The guide's recipe for a suite run once per answer-shape case, as it stands.
      'answer-shapes.spec.ts': perCaseFile,
      'no-setup/vitest.config.ts': 'export default {}\n',
      'no-setup/tenant.spec.ts': testFile,
    })
    await npm(['install', '-D', 'vitest', tarball], dir)
    const vitest = [
      'node_modules/vitest/vitest.mjs',
      'run',
      '--maxWorkers',
      '4',
      '--exclude',
      'no-setup/**',
    ]
    for (let round = 1; round <= rounds; round++) {
      const port = await freePort()
      const { stdout } = await run(node26, vitest, {
        cwd: dir,
        env: {
          ...env,
          IDENTIFY_API_MOCK_PORT: String(port),
          ...(round === 2 && coverageFiles(dir)),
        },
      })
      const report = stripVTControlCharacters(stdout)
      expectCoverage(report, dir, round)
      expect({ round, files: report.match(/Test Files +(.*)/)?.[1] }).toEqual({
        round,
        files: '10 passed (10)',
      })
      // 8 receiver files of 3 tests, the identify file's 4, and 2 tests for each answer-shape case.
      const tests = 8 * 3 + 4 + 2 * shapeCases.length
      expect(report).toMatch(new RegExp(`Tests +${tests} passed \\(${tests}\\)`))
    }
    expectBelowThreshold(await runToEnd(vitest, { cwd: dir, env: { ...env, ...threshold } }))
    const failed = await runToEnd(['../node_modules/vitest/vitest.mjs', 'run'], {
      cwd: join(dir, 'no-setup'),
      env,
    })
    expect(failed.code).toBe(1)
    expect(failed.output).toContain(
      "Error: identify-api-mock: no shared server for this test file: add globalSetup: ['identify-api-mock/vitest-server'] to the vitest config\n",
    )
  }, 600_000)

  it("reports loudly and early: a threshold typo and a bad variable in one line before any test, a failed threshold as the run's last lines and in the Markdown, the default report within 15 lines, it.each(failureCases) at collection time", async () => {
    const dir = project('vitest-reports', {
      'vitest.config.ts': vitestConfig,
      'tenant.spec.ts': testFile,
      // The guide's recipe for a test per failure case, the list imported where tests are collected.
      'failure-cases.spec.ts': perFailureCaseFile,
    })
    await npm(['install', '-D', 'vitest', tarball], dir)
    /** A vitest run, stdout and stderr in one stream as a terminal shows them, in their order. */
    const vitest = async (variables: Record<string, string> = {}) => {
      const port = await freePort()
      const oneStream = [
        "const { spawnSync } = require('node:child_process')",
        "const args = ['node_modules/vitest/vitest.mjs', 'run', '--maxWorkers', '2']",
        "process.exit(spawnSync(process.execPath, args, { stdio: ['ignore', 1, 1] }).status ?? 1)",
      ].join('\n')
      const { code, output } = await runToEnd(['-e', oneStream], {
        cwd: dir,
        env: { ...env, IDENTIFY_API_MOCK_PORT: String(port), ...variables },
      })
      return { code, output: stripVTControlCharacters(output) }
    }
    const groups = 'identify, delete, answer-shapes, web-view, webhooks, failures'

    // A typo in a threshold: one line naming the groups, and no test run.
    const typo = await vitest({ IDENTIFY_API_MOCK_COVERAGE_THRESHOLDS: 'identify=10,delet=50' })
    expect(typo.code).toBe(1)
    expect(typo.output).toContain(
      `identify-api-mock: IDENTIFY_API_MOCK_COVERAGE_THRESHOLDS: no group "delet" (the groups are ${groups})\n`,
    )
    expect(typo.output).not.toMatch(/✓|Test Files|Tests +\d|Unhandled|❯/)

    // A bad value of a documented variable: one line naming it, no stack, no box.
    const badPort = await vitest({ IDENTIFY_API_MOCK_PORT: 'abc' })
    expect(badPort.code).toBe(1)
    const portLines = badPort.output
      .split('\n')
      .filter((line) => line.trim() !== '' && !/^ RUN +v\d/.test(line))
    expect(portLines).toEqual([
      expect.stringMatching(
        /^identify-api-mock: .*'IDENTIFY_API_MOCK_PORT'.* is invalid\. expected a whole number from 0 to 65535\.$/,
      ),
    ])

    // A passing run: the failure cases collected as tests, and a report of at most 15 lines.
    const passing = await vitest()
    expect(passing.code, passing.output).toBe(0)
    const perCase = failureCases.filter(
      (c) => c.operation === 'identify' && (c.kind === 'status' || c.kind === 'gateway'),
    ).length
    expect(passing.output).toMatch(new RegExp(`Tests +${3 + perCase} passed \\(${3 + perCase}\\)`))
    const report = passing.output.slice(
      passing.output.indexOf('identify-api-mock: the clients met'),
    )
    expect(report.trimEnd().split('\n').length).toBeLessThanOrEqual(15)
    expect(report).toMatch(/^Never met: \d+ \(/m)

    // A threshold not met: the run's last lines, exit code 1, and the Markdown and JSON say it.
    const files = coverageFiles(dir)
    const failing = await vitest({
      ...files,
      IDENTIFY_API_MOCK_COVERAGE_THRESHOLDS: 'identify=10,web-view=100',
    })
    expect(failing.code).toBe(1)
    expect(failing.output).toMatch(/Tests +\d+ passed/)
    expect(failing.output).not.toMatch(/error during close|Unhandled/)
    expect(failing.output.trimEnd().split('\n').slice(-3)).toEqual([
      'identify-api-mock: contract coverage below its threshold:',
      '  web view: 0 % of its answers met (0/5), below 100 %',
      'identify-api-mock: the run fails (exit code 1), however its tests went',
    ])
    const markdown = readFileSync(files.IDENTIFY_API_MOCK_COVERAGE_MARKDOWN, 'utf8')
    expect(markdown).toContain(
      '**The run failed: contract coverage below its threshold.**\n\n- web view: 0 % of its answers met (0/5), below 100 %',
    )
    const json = JSON.parse(readFileSync(files.IDENTIFY_API_MOCK_COVERAGE_JSON, 'utf8'))
    expect(json.thresholds).toEqual([
      expect.objectContaining({ group: 'identify', least: 10, passed: true }),
      expect.objectContaining({ group: 'web view', least: 100, met: 0, passed: false }),
    ])
  }, 600_000)

  it(`runs 8 test files in 4 jest workers on one shared server on the port the environment gives, a tenant and a webhook receiver each, ${rounds} runs in a row`, async () => {
    // The guide's config and test files as they stand; the file without the setup has a config
    // without the entries.
    const specs = Object.fromEntries(
      Array.from({ length: 8 }, (_, i) => [
        `tenant-${i + 1}.spec.ts`,
        `${jestReceiverFile}${onThePort}`,
      ]),
    )
    const withoutSetup = jestConfig
      .split('\n')
      .filter((line) => !/identify-api-mock|identifyApiMockServer/.test(line))
      .join('\n')
    const dir = project('jest', {
      'jest.config.js': jestConfig,
      ...specs,
      'identify.spec.ts': `${jestSpec}${onThePort}`,
      'no-setup/jest.config.js': withoutSetup,
      'no-setup/tenant.spec.ts': jestSpec,
    })
    await npm(['install', '-D', 'jest@30', '@babel/preset-typescript@7', tarball], dir)
    const jest = ['--experimental-vm-modules', join(dir, 'node_modules/jest/bin/jest.js'), '--ci']
    for (let round = 1; round <= rounds; round++) {
      const port = await freePort()
      const args = [...jest, '--maxWorkers', '4', '--testPathIgnorePatterns', '/no-setup/']
      const { stdout, stderr } = await run(node26, args, {
        cwd: dir,
        env: {
          ...env,
          IDENTIFY_API_MOCK_PORT: String(port),
          ...(round === 2 && coverageFiles(dir)),
        },
      })
      expectCoverage(stdout, dir, round)
      expect({ round, suites: stderr.match(/Test Suites: +(.*)/)?.[1] }).toEqual({
        round,
        suites: '9 passed, 9 total',
      })
      // 8 receiver files of 3 tests, and the identify file's 3.
      expect(stderr).toMatch(/Tests: +27 passed, 27 total/)
    }
    const args = [...jest, '--maxWorkers', '4', '--testPathIgnorePatterns', '/no-setup/']
    expectBelowThreshold(await runToEnd(args, { cwd: dir, env: { ...env, ...threshold } }))
    const failed = await runToEnd(jest, { cwd: join(dir, 'no-setup'), env })
    expect(failed.code).toBe(1)
    expect(failed.output).toContain(
      "identify-api-mock: no shared server for this test file: add globalSetup: 'identify-api-mock/jest-server' to the jest config",
    )
  }, 600_000)

  it.skipIf(python === undefined)(
    `runs the Python example's pytest suite in 4 workers against the packed package's server${python ? '' : ' (skipped: no python3 with pytest and pytest-xdist)'}`,
    async () => {
      const dir = project('python', {})
      await npm(['install', tarball], dir)
      const bin = join(dir, 'node_modules/identify-api-mock/dist/src/server/cli.js')
      const server = spawn(node26, [bin, 'serve', '--port', '0', '--json'], { cwd: dir, env })
      try {
        const line = await new Promise<string>((resolve, reject) => {
          let out = ''
          server.stdout.on('data', (chunk) => {
            out += chunk
            if (out.includes('\n')) resolve(out.split('\n')[0] ?? '')
          })
          server.on('exit', (code) => reject(new Error(`the server exited with ${code}`)))
        })
        const { url } = JSON.parse(line)
        const { stdout } = await run(
          python as string,
          ['-m', 'pytest', '-n', '4', '-q', '-p', 'no:cacheprovider'],
          {
            cwd: join(repoRoot, 'examples/python-backend'),
            env: { ...env, IDENTIFY_API_URL: url, PYTHONDONTWRITEBYTECODE: '1' },
          },
        )
        expect(stdout).toMatch(pythonExamplePassed)
      } finally {
        const exited = new Promise((resolve) => server.once('exit', resolve))
        server.kill('SIGTERM')
        await exited
      }
    },
    300_000,
  )

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
