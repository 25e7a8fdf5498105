import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { repoRoot } from './processes.ts'
import { interleave, median } from './stats.ts'

const run = promisify(execFile)

/** The environment of a fresh process: Node's compile cache off, as a consumer's first run. */
const freshEnv = (() => {
  const { NODE_COMPILE_CACHE: _, NODE_OPTIONS: __, ...env } = process.env
  return env
})()

/** Milliseconds from spawning `node --input-type=module -e <code>` in the repository to its exit. */
async function nodeEval(code: string): Promise<number> {
  const started = performance.now()
  await run(process.execPath, ['--input-type=module', '-e', code], { cwd: repoRoot, env: freshEnv })
  return performance.now() - started
}

/**
 * What a test file pays before its first test: `import('identify-api-mock')`, `createMockApi()`
 * and `ready`, against importing `msw/node` alone, each in a fresh process less a bare `node -e 0`.
 * The package is imported by its name from the repository, which resolves to the built `dist`.
 */
export async function importCosts(rounds: number) {
  const samples = await interleave(rounds, {
    bare: () => nodeEval('0'),
    msw: () => nodeEval("await import('msw/node')"),
    mock: () =>
      nodeEval(
        "const { createMockApi } = await import('identify-api-mock'); await createMockApi().ready",
      ),
  })
  const bare = median(samples.bare)
  return { bare, msw: median(samples.msw) - bare, mock: median(samples.mock) - bare }
}

/** The phases of a test file {@link testFileCpu} measures, in the order they run. */
const phases = ['import', 'createMockApi', 'ready', 'resets', 'calls'] as const

/** The CPU time of each phase of a test file, in milliseconds. */
export type TestFileCpu = Record<(typeof phases)[number], number>

/**
 * The CPU time (main thread and Node's own threads, from `process.cpuUsage`) of each thing a
 * test file does with the mock, in a fresh process with `msw` and `msw/node` already imported
 * (a test file imports them anyway): the package's import, `createMockApi()`, `ready`, then
 * {@link testsPerFile} resets and as many identify calls through `api.fetch`. Medians of
 * `rounds` processes. CPU rather than wall time: on a shared machine it moves less with the
 * other work, and it is what a suite's workers share the cores by.
 */
export async function testFileCpu(rounds: number): Promise<TestFileCpu>
/**
 * The same with the package of another build (`base`, a copy of this repository with its `dist`
 * built) measured in turn with this one: a before and after from one run.
 */
export async function testFileCpu(
  rounds: number,
  base: string,
): Promise<{ this: TestFileCpu; base: TestFileCpu }>
export async function testFileCpu(
  rounds: number,
  base?: string,
): Promise<TestFileCpu | { this: TestFileCpu; base: TestFileCpu }> {
  const code = `const spent = []
let at = process.cpuUsage()
const phase = () => { const { user, system } = process.cpuUsage(at); spent.push((user + system) / 1000); at = process.cpuUsage() }
await import('msw/node'); await import('msw'); at = process.cpuUsage()
const { createMockApi } = await import('identify-api-mock'); phase()
const api = createMockApi(); phase()
await api.ready; phase()
for (let i = 0; i < ${testsPerFile}; i++) await api.reset(); phase()
const [{ orgId, apiKeys: [apiKey] }] = api.credentials
for (let i = 0; i < ${testsPerFile}; i++) {
  const response = await api.fetch('https://api.example.test/api/v1/users/identify', {
    method: 'POST',
    headers: { authorization: 'Bearer ' + apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ id: 'user-' + i, orgId }),
  })
  if (response.status !== 200) throw new Error('identify answered ' + response.status)
}
phase()
console.log(JSON.stringify(spent))`
  // The package by its name from the build's own folder: its `dist`.
  const measure = async (cwd: string) => {
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', code], {
      cwd,
      env: freshEnv,
    })
    return JSON.parse(stdout) as number[]
  }
  const builds: Record<string, () => Promise<number[]>> = { this: () => measure(repoRoot) }
  if (base) builds.base = () => measure(base)
  const samples = await interleave(rounds, builds)
  const medians = (of: number[][]) =>
    Object.fromEntries(
      phases.map((name, i) => [name, median(of.map((spent) => spent[i] as number))]),
    ) as TestFileCpu
  const [ours = [], theirs] = [samples.this, samples.base]
  return theirs ? { this: medians(ours), base: medians(theirs) } : medians(ours)
}

const testsPerFile = 10
const files = 20

/** One test file of the suite: a mock (or one trivial msw handler), reset after each test. */
function testFile(kind: 'mock' | 'trivial'): string {
  const setup =
    kind === 'mock'
      ? `import { createMockApi } from 'identify-api-mock'
const api = createMockApi()
const server = setupServer(...api.handlers)
const [{ orgId, apiKeys: [apiKey] }] = api.credentials
beforeAll(async () => { await api.ready; server.listen({ onUnhandledRequest: 'error' }) })
afterEach(() => api.reset())`
      : `import { http, HttpResponse } from 'msw'
const [orgId, apiKey] = ['org-1', 'key-1']
const server = setupServer(
  http.post('https://api.example.test/api/v1/users/identify', () =>
    HttpResponse.json({ id: 'user-1', data: {}, token: 'token' }),
  ),
)
beforeAll(() => { server.listen({ onUnhandledRequest: 'error' }) })
afterEach(() => server.resetHandlers())`
  return `import { setupServer } from 'msw/node'
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
${setup}
afterAll(() => server.close())

for (let i = 0; i < ${testsPerFile}; i++) {
  it('identifies user ' + i, async () => {
    const response = await fetch('https://api.example.test/api/v1/users/identify', {
      method: 'POST',
      headers: { authorization: 'Bearer ' + apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'user-' + i, orgId }),
    })
    expect(response.status).toBe(200)
    expect(await response.json()).toHaveProperty('token')
  })
}
`
}

/**
 * A scratch project of {@link files} test files of `kind`, with the package installed as a
 * consumer has it: `node_modules/identify-api-mock` (this repository, its built `dist`) beside
 * the repository's other packages. `preserveSymlinks` keeps that path, so that vitest leaves the
 * package to Node, as it does any package under `node_modules`, instead of transforming it.
 */
function suite(kind: 'mock' | 'trivial', packageRoot = repoRoot): string {
  const dir = mkdtempSync(join(tmpdir(), `identify-api-mock-suite-${kind}-`))
  const modules = join(dir, 'node_modules')
  mkdirSync(modules)
  for (const name of readdirSync(join(repoRoot, 'node_modules'))) {
    symlinkSync(join(repoRoot, 'node_modules', name), join(modules, name))
  }
  symlinkSync(packageRoot, join(modules, 'identify-api-mock'))
  mkdirSync(join(dir, 'test'))
  for (let i = 0; i < files; i++) writeFileSync(join(dir, 'test', `f${i}.test.ts`), testFile(kind))
  writeFileSync(
    join(dir, 'vitest.config.ts'),
    `import { defineConfig } from 'vitest/config'
export default defineConfig({
  resolve: { preserveSymlinks: true },
  test: { include: ['test/*.test.ts'] },
})
`,
  )
  return dir
}

/** Seconds in the form bash's `times` prints them (`1m2.345s`), as milliseconds. */
function bashTime(text: string): number {
  const [, minutes = '0', seconds = '0'] = /^(\d+)m([\d.]+)s$/.exec(text) ?? []
  return (Number(minutes) * 60 + Number(seconds)) * 1000
}

/**
 * One `vitest run` of the suite in `dir`, which must pass: its wall time, and the CPU time of
 * vitest and its workers together (user and system, from bash's `times` once vitest has ended),
 * which moves less than wall time with the machine's other work.
 */
async function vitestRun(dir: string): Promise<{ wall: number; cpu: number }> {
  const started = performance.now()
  const { stdout } = await run(
    'bash',
    [
      '-c',
      '"$0" "$1" run > /dev/null && times',
      process.execPath,
      join(repoRoot, 'node_modules/vitest/vitest.mjs'),
    ],
    { cwd: dir, env: freshEnv, maxBuffer: 1 << 24 },
  )
  const wall = performance.now() - started
  // `times` prints the shell's own times, then its children's: vitest's, its workers' included.
  const [user = '', system = ''] = stdout.trim().split('\n').at(-1)?.split(' ') ?? []
  return { wall, cpu: bashTime(user) + bashTime(system) }
}

/**
 * A suite of {@link files} files of {@link testsPerFile} tests each, every file creating a mock
 * and resetting it after each test, against the same suite over one trivial msw handler: the
 * wall time and the CPU time of a `vitest run` of each, interleaved. With `base` (another build's
 * folder), the mock's suite over that build's package too, in turn with the others.
 */
export async function vitestSuiteCosts(rounds: number, base?: string) {
  const dirs: Record<string, string> = { trivial: suite('trivial'), mock: suite('mock') }
  if (base) dirs.base = suite('mock', base)
  try {
    const samples = await interleave(
      rounds,
      Object.fromEntries(Object.entries(dirs).map(([key, dir]) => [key, () => vitestRun(dir)])),
    )
    const of = (key: string, figure: 'wall' | 'cpu') =>
      median((samples[key] ?? []).map((sample) => sample[figure]))
    return {
      files,
      testsPerFile,
      trivial: of('trivial', 'wall'),
      mock: of('mock', 'wall'),
      trivialCpu: of('trivial', 'cpu'),
      mockCpu: of('mock', 'cpu'),
      // The same suite over the `base` build's package, when there is one.
      base: samples.base && { wall: of('base', 'wall'), cpu: of('base', 'cpu') },
    }
  } finally {
    for (const dir of Object.values(dirs)) rmSync(dir, { recursive: true, force: true })
  }
}
