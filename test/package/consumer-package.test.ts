import { execFile, spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { promisify, stripVTControlCharacters } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bundleInspectorScript } from '../../src/inspector/bundle.ts'
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

/** A Node major that consumer projects run on. */
type NodeMajor = '20' | '22' | '24' | '26'

/**
 * The combinations the README claims, each a consumer project of its own. The one on today's
 * majors is installed with the line a new user types (`npm install -D vitest identify-api-mock`,
 * from the tarball), its msw coming in as the peer npm adds.
 */
const combinations = [
  {
    node: '22',
    msw: '2',
    vitest: '4',
    install: (tarball: string) => [tarball, 'msw@2', 'vitest@4'],
  },
  {
    node: '24',
    msw: '3',
    vitest: '4',
    install: (tarball: string) => [tarball, 'msw@3', 'vitest@4'],
  },
  { node: '26', msw: '3', vitest: '5', install: (tarball: string) => ['-D', 'vitest', tarball] },
] as const

const scratch = mkdtempSync(join(tmpdir(), 'identify-api-mock-consumer-'))
/**
 * The node binary of each major: 26 is the repository's own (devDependencies), the others come
 * from the registry's `node` package (see docs/decisions/consumer-node-versions.md).
 */
const nodeBinary = (major: NodeMajor) =>
  major === '26'
    ? join(repo, 'node_modules/node/bin/node')
    : join(scratch, `nodes/node_modules/node${major}/bin/node`)
/** The environment of a command run on `major`: its node first on PATH, for npm, npx and bins. */
const onNode = (major: NodeMajor) => ({
  ...process.env,
  PATH: `${dirname(nodeBinary(major))}:${process.env.PATH}`,
})

/** Runs each line of a README shell block in `cwd`, as a reader pasting it would. */
async function runLines(block: string, cwd: string, node: NodeMajor) {
  for (const line of block.split('\n').filter((l) => l.trim() && !l.startsWith('#'))) {
    await run('sh', ['-c', line], { cwd, env: onNode(node), maxBuffer: 1 << 26 })
  }
}

/** npm, with the shared cache preferred over asking the registry again. */
const npm = (args: string[], cwd: string, node: NodeMajor = '26') =>
  run('npm', [...args, '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd,
    env: onNode(node),
    maxBuffer: 1 << 26,
  })

/** A consumer project's folder with its package.json and `files`. */
function project(name: string, files: Record<string, string>, scripts: Record<string, string>) {
  const dir = join(scratch, name)
  mkdirSync(dir)
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module', scripts }),
  )
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text)
  return dir
}

/** Runs `file` to its end, failing or not: its exit code and what it printed. */
const runToEnd = (
  file: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv },
) =>
  run(file, args, options).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({
      code: error.code,
      stdout: error.stdout,
      stderr: error.stderr,
    }),
  )

const installedVersion = (dir: string, name: string) =>
  JSON.parse(readFileSync(join(dir, 'node_modules', name, 'package.json'), 'utf8')).version

describe('the packed package in a consumer project', () => {
  let tarball = ''
  const projects = Object.fromEntries(
    combinations.map((c) => [c.node, join(scratch, `node${c.node}-msw${c.msw}-vitest${c.vitest}`)]),
  )
  const jestProject = join(scratch, 'jest')

  // Everything installs at once, from npm's shared cache where it can: the Node binaries, then
  // (once packed) each project.
  beforeAll(async () => {
    const nodes = join(scratch, 'nodes')
    mkdirSync(nodes)
    writeFileSync(
      join(nodes, 'package.json'),
      JSON.stringify({ private: true, allowScripts: { node: true } }),
    )
    const packed = npm(['pack', '--pack-destination', scratch], repo).then(({ stdout }) => {
      tarball = join(scratch, stdout.trim().split('\n').at(-1) ?? '')
    })
    const installedNodes = npm(
      // Node 22 at the oldest release the README claims; 20 to show the refusal.
      ['install', 'node20@npm:node@20', 'node22@npm:node@22.12.0', 'node24@npm:node@24'],
      nodes,
    )
    await packed
    const consumers = combinations.map(async (c) => {
      const dir = project(`node${c.node}-msw${c.msw}-vitest${c.vitest}`, vitestFiles, {
        test: 'vitest run',
      })
      await npm(['install', ...c.install(tarball)], dir)
      await installedNodes
      await runLines(openapiCommands, dir, c.node)
    })
    const jest = (async () => {
      const dir = project(
        'jest',
        {
          'jest.config.js': jestConfig,
          'handlers.test.ts': jestHandlers,
          'fetch.test.ts': jestFetch,
        },
        { test: 'NODE_OPTIONS=--experimental-vm-modules jest' },
      )
      await npm(['install', tarball, 'msw@3'], dir)
      await runLines(jestInstall, dir, '26')
    })()
    await Promise.all([installedNodes, ...consumers, jest])
  }, 600_000)
  // Four projects' node_modules: removing them takes longer than a hook's default 10 s.
  afterAll(() => rm(scratch, { recursive: true, force: true }), 120_000)

  it("contains compiled JavaScript, declarations, the bin, the license, the data file's JSON Schema and the Dockerfile, and nothing else", async () => {
    const { stdout } = await run('tar', ['-tzf', tarball])
    const files = stdout.trim().split('\n')
    expect(files).toContain('package/dist/src/root/index.js')
    expect(files).toContain('package/dist/src/root/index.d.ts')
    expect(files).toContain('package/dist/src/server/cli.js')
    expect(files).toContain('package/LICENSE')
    expect(files).toContain('package/Dockerfile')
    expect(
      files.filter(
        (f) =>
          !/^package\/(dist\/.*\.(js|d\.ts)|LICENSE|README\.md|data-file\.schema\.json|package\.json|Dockerfile)$/.test(
            f,
          ),
      ),
    ).toEqual([])
    expect(files.some((f) => /\.test\.|\/test\/|\.ts$/.test(f.replace(/\.d\.ts$/, '')))).toBe(false)
    // Every shared chunk is imported by an entry or another chunk: none is left from an earlier build.
    const installed = join(projects['26'] ?? '', 'node_modules', 'identify-api-mock')
    const code = files
      .filter((f) => f.endsWith('.js'))
      .map((f) => readFileSync(join(installed, f.replace(/^package\//, '')), 'utf8'))
      .join('\n')
    const chunks = files.filter((f) => f.startsWith('package/dist/chunks/'))
    expect(chunks.length).toBeGreaterThan(0)
    expect(chunks.filter((f) => !code.includes(`/${basename(f)}"`))).toEqual([])
  })

  it('passes publint', async () => {
    const { stdout } = await run('npx', ['publint', tarball], { cwd: repo })
    expect(stdout).toMatch(/All good!/)
  }, 60_000)

  it("installs with `npm install -D vitest identify-api-mock`: today's vitest, and msw 3 as its peer", () => {
    const dir = projects['26'] ?? ''
    expect(installedVersion(dir, 'vitest')).toMatch(/^5\./)
    expect(installedVersion(dir, 'msw')).toMatch(/^3\./)
    expect(installedVersion(dir, 'identify-api-mock')).toBe(
      JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')).version,
    )
  })

  for (const { node, msw, vitest } of combinations) {
    describe(`on Node ${node} with msw ${msw} and vitest ${vitest}`, () => {
      const dir = () => projects[node] ?? ''

      it('has the Node, msw and vitest it is named after', async () => {
        const { stdout } = await run(nodeBinary(node), ['--version'])
        expect(stdout).toMatch(new RegExp(`^v${node}\\.`))
        expect(installedVersion(dir(), 'msw')).toMatch(new RegExp(`^${msw}\\.`))
        expect(installedVersion(dir(), 'vitest')).toMatch(new RegExp(`^${vitest}\\.`))
      })

      it("runs the docs' vitest suites: quick start, api.fetch alone, openapi-fetch, matchers", async () => {
        const { stdout } = await run(
          nodeBinary(node),
          [join(dir(), 'node_modules/vitest/vitest.mjs'), 'run'],
          { cwd: dir(), env: onNode(node) },
        )
        const report = stripVTControlCharacters(stdout)
        expect(report).toMatch(new RegExp(`Tests +${vitestTests.length} passed \\(`))
        for (const name of vitestTests) expect(report).toContain(`✓ ${name}`)
      }, 120_000)

      it('type-checks the suites of the docs against the published declarations', async () => {
        writeFileSync(
          join(dir(), 'tsconfig.json'),
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
        // The repository's TypeScript 7: what is checked is the project's declarations.
        await run(join(repo, 'node_modules/.bin/tsc'), ['-p', dir()], { cwd: dir() })
      }, 120_000)

      it('plans a verify run from identify-api-mock/verify, the Node-only entry point, with no key', async () => {
        const script = [
          "import { planVerification } from 'identify-api-mock/verify'",
          "const plan = planVerification({ baseUrl: 'https://staging.example.test', orgId: 'acme' })",
          'console.log(JSON.stringify({ requests: plan.requests.length, user: plan.throwawayUser.id }))',
        ].join('\n')
        const { stdout } = await run(nodeBinary(node), ['--input-type=module', '-e', script], {
          cwd: dir(),
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
        const { stdout } = await run(nodeBinary(node), ['--input-type=module', '-e', script], {
          cwd: dir(),
        })
        expect(JSON.parse(stdout)).toEqual(['org-1', 'org-2', 'org-3'])
      }, 60_000)

      it('starts the bin with npx, from compiled JavaScript', async () => {
        // A process group of its own: npx runs the server as a child, which must stop with it.
        const child = spawn('npx', ['identify-api-mock', 'serve', '--port', '0', '--json'], {
          cwd: dir(),
          env: onNode(node),
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
          // The inspector's script as bundled at build: the package has no esbuild to call.
          const script = await fetch(`${url}/__mock/inspector.js`)
          expect(script.status).toBe(200)
          expect(await script.text()).toBe(await bundleInspectorScript())
        } finally {
          if (child.pid) process.kill(-child.pid, 'SIGTERM')
          await exited
        }
      }, 60_000)
    })
  }

  describe('on Node 22.12, the oldest it supports', () => {
    const dir = () => projects['22'] ?? ''

    it('runs on 22.12.0 itself, and refuses --state-file there with one line naming 22.13', async () => {
      const { stdout: version } = await run(nodeBinary('22'), ['--version'])
      expect(version.trim()).toBe('v22.12.0')
      const bin = join(dir(), 'node_modules/identify-api-mock/dist/src/server/cli.js')
      const stateFile = join(dir(), 'state.db')
      const failed = await runToEnd(
        nodeBinary('22'),
        [bin, 'serve', '--port', '0', '--state-file', stateFile],
        { cwd: dir() },
      )
      expect(failed.code).toBe(1)
      expect(failed.stdout).toBe('')
      expect(failed.stderr.trim().split('\n')).toEqual([
        expect.stringContaining(
          '--state-file needs node:sqlite, which Node v22.12.0 lacks: use Node 22.13 or newer',
        ),
      ])
    }, 60_000)
  })

  describe('on Node 20, older than it supports', () => {
    // vitest 4 still starts on Node 20, so the quick start reaches createMockApi.
    const dir = () => projects['22'] ?? ''
    const refusal = /needs Node 22\.12 or newer; this is Node 20\.\d+\.\d+/

    it('refuses to start the bin, with one line naming the Node it needs', async () => {
      const { stdout: version } = await run(nodeBinary('20'), ['--version'])
      const bin = join(dir(), 'node_modules/identify-api-mock/dist/src/server/cli.js')
      const failed = await runToEnd(nodeBinary('20'), [bin, 'serve', '--port', '0'], {
        cwd: dir(),
      })
      expect(failed).toEqual({
        code: 1,
        stdout: '',
        stderr: `identify-api-mock: needs Node 22.12 or newer; this is Node ${version.trim().slice(1)}\n`,
      })
    }, 60_000)

    it('refuses startServer with that line, as the bin and createMockApi do', async () => {
      const failed = await runToEnd(
        nodeBinary('20'),
        [
          '--input-type=module',
          '-e',
          "const { startServer } = await import('identify-api-mock/server'); await startServer({ port: 0 })",
        ],
        { cwd: dir() },
      )
      expect(failed.code).toBe(1)
      expect(failed.stderr).toMatch(new RegExp(`Error: identify-api-mock ${refusal.source}`))
    }, 60_000)

    it("fails the README's quick start with that line, not deep inside msw", async () => {
      const failed = await runToEnd(
        nodeBinary('20'),
        [join(dir(), 'node_modules/vitest/vitest.mjs'), 'run', 'quick-start.test.ts'],
        { cwd: dir(), env: onNode('20') },
      )
      const report = stripVTControlCharacters(`${failed.stdout}${failed.stderr}`)
      expect(failed.code).toBe(1)
      expect(report).toMatch(new RegExp(`Error: identify-api-mock ${refusal.source}`))
      expect(report).not.toMatch(/withResolvers/)
    }, 120_000)
  })

  describe('with jest 30 in ESM on Node 26, as the README configures it', () => {
    it('passes a test with setupServer in jsdom and one with api.fetch', async () => {
      const { stderr } = await npm(['test'], jestProject)
      expect(stderr).toMatch(/PASS .*handlers\.test\.ts/)
      expect(stderr).toMatch(/PASS .*fetch\.test\.ts/)
      expect(stderr).toMatch(/Tests: +2 passed, 2 total/)
      const { stdout } = await run('node', ['--version'], { env: onNode('26') })
      expect(stdout).toMatch(/^v26\./)
    }, 120_000)
  })
})
