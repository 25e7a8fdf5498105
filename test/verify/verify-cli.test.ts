import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from '../../src/server/server.ts'
import { verifyReportSchema } from '../../src/verify/node/index.ts'
import { cliPath, runCli } from '../support/cli-process.ts'
import {
  type DriftingProxy,
  forbidInsteadOfUnauthorized,
  startDriftingProxy,
} from '../support/drifting-proxy.ts'
import { throwawayUsersIn } from '../support/verify-suite.ts'

/** `identify-api-mock verify` as a process: its exit codes, its outputs, Ctrl-C. */
let server: RunningServer
let proxy: DriftingProxy
let key = ''
const scratch = mkdtempSync(join(tmpdir(), 'identify-api-mock-verify-'))

beforeAll(async () => {
  server = await startServer({ port: 0 })
  proxy = await startDriftingProxy(server.url)
  key = server.core.credentials[0]?.apiKeys[0] ?? ''
})
afterAll(async () => {
  await proxy.close()
  await server.close()
  rmSync(scratch, { recursive: true, force: true })
})
beforeEach(async () => {
  await server.core.reset()
  proxy.drift = (exchange) => exchange
  proxy.delayMs = () => 0
})

/**
 * Runs `verify` to its end against `baseUrl` (the server by default), and checks that it deleted
 * its user and never printed the key.
 */
async function verify(args: string[], baseUrl = server.url) {
  const cli = runCli(['verify', '--base-url', baseUrl, '--api-key', key, '--org', 'org-1', ...args])
  const { code } = await cli.exit
  expect(throwawayUsersIn(await server.core.state())).toEqual([])
  expect(cli.stdout() + cli.stderr()).not.toContain(key)
  return { code, stdout: cli.stdout(), stderr: cli.stderr() }
}

/** What a run that cannot run must look like: exit 2, one line on stderr, nothing on stdout. */
function expectCannotRun(
  run: { code: number | null; stdout: string; stderr: string },
  message: RegExp,
) {
  expect(run.code).toBe(2)
  expect(run.stdout).toBe('')
  expect(run.stderr.trim().split('\n')).toHaveLength(1)
  expect(run.stderr).toMatch(message)
  expect(run.stderr).not.toMatch(/\bat .*\.[jt]s:\d+/)
}

describe('identify-api-mock verify', { timeout: 30_000 }, () => {
  it('exits 0 against the standalone server, every contract row the same, with --json', async () => {
    const { code, stdout, stderr } = await verify(['--json', '--groups', 'grp-1,grp-2'])
    expect(stderr).toBe('')
    expect(code).toBe(0)
    const report = verifyReportSchema.parse(JSON.parse(stdout))
    expect(report.ok).toBe(true)
    expect(report.target).toBe(server.url)
    expect(
      report.checks.filter((c) => c.kind === 'contract' && c.verdict !== 'same').map((c) => c.name),
    ).toEqual(['identify and delete: 500 Internal server error'])
  })

  it('exits 0 with --strict: the mock passes its own decisions', async () => {
    const { code, stdout } = await verify(['--strict'])
    expect(code).toBe(0)
    expect(stdout).not.toMatch(/\s(contract|decision)\s+differs\s/)
  })

  it('prints a table, a summary line and no colour when stdout is not a terminal', async () => {
    const { stdout } = await verify([])
    expect(stdout).toMatch(
      /^ {2}identify answers 200\s+contract\s+same\s+expected 200 on every successful identify; actual 200 \(×3\)$/m,
    )
    expect(stdout).toMatch(/^\d+ same, \d+ differs \(0 contract, \d+ decision\), \d+ skipped: OK/m)
    expect(stdout).toMatch(/The throwaway user verify-[0-9a-f]{32} of org-1 was deleted\./)
    expect(stdout).not.toContain('\u001b[')
  })

  it('exits 1 and names the row when a contract row differs', async () => {
    proxy.drift = (e) =>
      e.status === 200 && e.method === 'POST'
        ? { ...e, body: e.body.replace(/^\{/, '{"expiresIn":300,') }
        : e
    const { code, stdout } = await verify([], proxy.url)
    expect(code).toBe(1)
    expect(stdout).toMatch(
      /^ {2}identify answer objects closed\s+contract\s+differs\s+.*expiresIn/m,
    )
    expect(stdout).toMatch(/FAILED/)
    expect(stdout).toMatch(
      /- identify answer objects closed \(contract\): The real API sends fields/,
    )
  })

  it('exits 0 and reports a decision row that differs; 1 with --strict', async () => {
    proxy.drift = forbidInsteadOfUnauthorized
    const loose = await verify([], proxy.url)
    expect(loose.code).toBe(0)
    expect(loose.stdout).toMatch(
      /^ {2}identify without Authorization: 401\s+decision\s+differs\s+.*actual 403/m,
    )
    expect(loose.stdout).toMatch(
      /- identify without Authorization: 401 \(decision\): .*--auth-failure-status/,
    )
    const strict = await verify(['--strict'], proxy.url)
    expect(strict.code).toBe(1)
  })

  it('writes a JUnit report: a test case per row, failures and skips counted', async () => {
    const file = join(scratch, 'verify.xml')
    const { code, stdout } = await verify(['--junit', file, '--strict', '--json'])
    const report = verifyReportSchema.parse(JSON.parse(stdout))
    const xml = readFileSync(file, 'utf8')
    expect(xml).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites /)
    expect(xml.match(/<testcase /g)).toHaveLength(report.checks.length)
    const skipped = report.checks.filter((c) => c.verdict === 'skipped')
    expect(skipped.length).toBeGreaterThan(0)
    expect(xml).toContain(`tests="${report.checks.length}" failures="0"`)
    expect(xml).toContain(`skipped="${skipped.length}"`)
    expect(xml.match(/<skipped /g)).toHaveLength(skipped.length)
    expect(xml.match(/<failure /g) ?? []).toHaveLength(0)
    expect(xml).toContain('name="delete: 404 for an id that cannot exist"></testcase>')
    expect(code).toBe(0)
  })

  it('takes the key from IDENTIFY_API_MOCK_VERIFY_API_KEY, out of the process list', async () => {
    process.env.IDENTIFY_API_MOCK_VERIFY_API_KEY = key
    const cli = runCli(['verify', '--base-url', server.url, '--org', 'org-1'])
    delete process.env.IDENTIFY_API_MOCK_VERIFY_API_KEY
    expect((await cli.exit).code).toBe(0)
    expect(cli.stdout()).toMatch(/: OK/)
    expect(cli.stdout()).not.toContain(key)
  })

  it('prints the plan with --dry-run and sends nothing', async () => {
    const { code, stdout } = await verify(['--dry-run'])
    expect(code).toBe(0)
    expect(server.core.requests()).toEqual([])
    expect(stdout).toMatch(/nothing is sent to http/)
    expect(stdout).toMatch(
      /^ {3}1\. POST {3}\/api\/v1\/users\/identify {2}\(create the throwaway user\)$/m,
    )
    expect(stdout.match(/^ +\d+\. /gm)).toHaveLength(15)
    expect(stdout).not.toContain(key)
  })

  it('prints the plan with --dry-run without an --api-key: it sends nothing, so needs none', async () => {
    const cli = runCli(['verify', '--base-url', server.url, '--org', 'org-1', '--dry-run'])
    expect((await cli.exit).code).toBe(0)
    expect(cli.stderr()).toBe('')
    expect(cli.stdout().match(/^ +\d+\. /gm)).toHaveLength(15)
    expect(server.core.requests()).toEqual([])
  })
})

describe('identify-api-mock verify: when it cannot run', { timeout: 30_000 }, () => {
  it('exits 2 with one line for a key the target refuses', async () => {
    const cli = runCli([
      'verify',
      '--base-url',
      server.url,
      '--api-key',
      'sk_wrong',
      '--org',
      'org-1',
    ])
    const { code } = await cli.exit
    expectCannotRun(
      { code, stdout: cli.stdout(), stderr: cli.stderr() },
      /refused the API key for org-1 \(401 on the first identify\)/,
    )
    expect(server.core.requests()).toHaveLength(1)
  })

  it('exits 2 with one line for a target that does not answer', async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const { port } = closed.address() as { port: number }
    await new Promise((resolve) => closed.close(resolve))
    const cli = runCli([
      'verify',
      '--base-url',
      `http://127.0.0.1:${port}`,
      '--api-key',
      key,
      '--org',
      'org-1',
    ])
    const { code } = await cli.exit
    expectCannotRun(
      { code, stdout: cli.stdout(), stderr: cli.stderr() },
      /cannot reach http:\/\/127\.0\.0\.1:\d+: no answer: fetch failed \(ECONNREFUSED\)/,
    )
  })

  for (const [what, args, message] of [
    [
      'a missing --org',
      ['--base-url', 'http://127.0.0.1:9', '--api-key', 'k'],
      /required option '--org <orgId>'/,
    ],
    [
      'a --timeout of 0',
      ['--base-url', 'http://127.0.0.1:9', '--api-key', 'k', '--org', 'o', '--timeout', '0'],
      /--timeout.*above 0/,
    ],
    [
      'a base URL that is not http',
      ['--base-url', 'ftp://example.com', '--api-key', 'k', '--org', 'o'],
      /baseUrl: expected an http or https URL/,
    ],
    [
      'a base URL with a query',
      ['--base-url', 'https://example.com/?tenant=1', '--api-key', 'k', '--org', 'o'],
      /baseUrl: expected a URL without a query or a fragment/,
    ],
    [
      'an unknown option',
      ['--base-url', 'http://127.0.0.1:9', '--api-key', 'k', '--org', 'o', '--stritc'],
      /unknown option '--stritc'/,
    ],
  ] as const) {
    it(`exits 2 with one line for ${what}`, async () => {
      const cli = runCli(['verify', ...args])
      const { code } = await cli.exit
      expectCannotRun({ code, stdout: cli.stdout(), stderr: cli.stderr() }, message)
    })
  }

  it('deletes the user after Ctrl-C, then exits 130', async () => {
    proxy.delayMs = () => 300
    const cli = runCli(['verify', '--base-url', proxy.url, '--api-key', key, '--org', 'org-1'])
    const deadline = Date.now() + 15_000
    while (throwawayUsersIn(await server.core.state()).length === 0) {
      if (Date.now() > deadline) throw new Error(`no throwaway user appeared: ${cli.stderr()}`)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    cli.child.kill('SIGINT')
    const { code } = await cli.exit
    expect(code).toBe(130)
    expect(cli.stdout()).toBe('')
    expect(cli.stderr()).toMatch(
      /^identify-api-mock: interrupted; the throwaway user verify-[0-9a-f]{32} was deleted\n$/,
    )
    expect(throwawayUsersIn(await server.core.state())).toEqual([])
    expect(server.core.requests().length).toBeLessThan(15)
  })
})

describe('identify-api-mock verify on a terminal', { timeout: 30_000 }, () => {
  /** Runs `verify` under a pseudo-terminal (util-linux `script`), as a person at a shell does. */
  async function verifyOnTerminal(env: Record<string, string>) {
    const command = [
      process.execPath,
      '--import',
      'tsx',
      cliPath,
      'verify',
      '--base-url',
      server.url,
      '--api-key',
      key,
      '--org',
      'org-1',
    ]
      .map((arg) => `'${arg}'`)
      .join(' ')
    // A terminal as a developer has one: Node gives no colour where `CI` is set, as in CI runs.
    const { NO_COLOR: _, FORCE_COLOR: __, CI: ___, ...inherited } = process.env
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      env: { ...inherited, TERM: 'xterm-256color', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    child.stdout.on('data', (chunk) => {
      out += chunk
    })
    const code = await new Promise((resolve) => child.on('exit', resolve))
    return { code, out }
  }

  it('colours the verdicts, unless NO_COLOR is set', async () => {
    const coloured = await verifyOnTerminal({})
    expect(coloured.code).toBe(0)
    expect(coloured.out).toContain(`\u001b[32msame`)
    const plain = await verifyOnTerminal({ NO_COLOR: '1' })
    expect(plain.code).toBe(0)
    expect(plain.out).toMatch(/contract {2}same/)
    expect(plain.out).not.toContain('\u001b[')
  })
})
