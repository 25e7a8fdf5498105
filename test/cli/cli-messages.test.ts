import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { runCli } from '../support/cli-process.ts'

/** What the CLI tells a user besides serving: its version, and its errors, one way for all. */
const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'))
const scratch = mkdtempSync(join(tmpdir(), 'identify-api-mock-messages-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

/** Runs the CLI to its end: its exit code and what it printed. */
async function finish(args: string[]) {
  const cli = runCli(args)
  const { code } = await cli.exit
  return { code, stdout: cli.stdout(), stderr: cli.stderr() }
}

describe('identify-api-mock --version', { timeout: 30_000 }, () => {
  it("prints the package's version and nothing else, with --version and -V", async () => {
    for (const flag of ['--version', '-V']) {
      expect(await finish([flag])).toEqual({
        code: 0,
        stdout: `${manifest.version}\n`,
        stderr: '',
      })
    }
  })
})

describe("identify-api-mock's errors", { timeout: 30_000 }, () => {
  const cases: Array<[string, string[], number, RegExp]> = [
    ['an unknown command', ['srve'], 1, /unknown command 'srve' \(Did you mean serve\?\)/],
    [
      'an unknown option',
      ['serve', '--prot', '1'],
      1,
      /unknown option '--prot' \(Did you mean --port\?\)/,
    ],
    ['a value commander refuses', ['serve', '--port', 'abc'], 1, /--port.*'abc' is invalid/],
    ['a flag that needs another', ['serve', '--api-key', 'k'], 1, /--api-key needs --org <orgId>/],
    ['a value the options refuse', ['serve', '--token-ttl', '0'], 1, /--token-ttl/],
    [
      'verify without --org',
      ['verify', '--base-url', 'http://127.0.0.1:9', '--api-key', 'k'],
      2,
      /required option '--org <orgId>'/,
    ],
    [
      'verify with a bad --timeout',
      [
        'verify',
        '--base-url',
        'http://127.0.0.1:9',
        '--api-key',
        'k',
        '--org',
        'o',
        '--timeout',
        '0',
      ],
      2,
      /--timeout.*above 0/,
    ],
    [
      'verify without a key',
      ['verify', '--base-url', 'http://127.0.0.1:9', '--org', 'o'],
      2,
      /required option '--api-key <key>' not specified/,
    ],
  ]
  for (const [what, args, exitCode, message] of cases) {
    it(`tells ${what} in one line that starts with the program's name`, async () => {
      const { code, stdout, stderr } = await finish(args)
      expect(code).toBe(exitCode)
      expect(stdout).toBe('')
      expect(stderr).toMatch(/^identify-api-mock: [^\n]+\n$/)
      expect(stderr).not.toMatch(/\berror: /)
      expect(stderr).toMatch(message)
    })
  }
})

describe('identify-api-mock openapi --out, for a file it cannot write', { timeout: 30_000 }, () => {
  it('says that the directory does not exist, not ENOENT', async () => {
    const out = join(scratch, 'missing', 'openapi.json')
    expect(await finish(['openapi', '--out', out])).toEqual({
      code: 1,
      stdout: '',
      stderr: `identify-api-mock: cannot write ${out}: its directory ${join(scratch, 'missing')} does not exist\n`,
    })
  })

  it('says that the path is a directory, or that a part of it is a file', async () => {
    const folder = join(scratch, 'folder')
    mkdirSync(folder)
    writeFileSync(join(scratch, 'file'), '')
    expect((await finish(['openapi', '--out', folder])).stderr).toBe(
      `identify-api-mock: cannot write ${folder}: it is a directory\n`,
    )
    const under = join(scratch, 'file', 'openapi.json')
    expect((await finish(['openapi', '--out', under])).stderr).toBe(
      `identify-api-mock: cannot write ${under}: a part of ${join(scratch, 'file')} is not a directory\n`,
    )
  })
})

describe('identify-api-mock control-openapi | head', { timeout: 30_000 }, () => {
  it('stops quietly when its reader closes the pipe before the document is written', async () => {
    // The document is larger than a pipe holds: the reader leaves while the CLI is still writing.
    const cli = runCli(['control-openapi'])
    cli.child.stdout?.once('data', () => cli.child.stdout?.destroy())
    expect(await cli.exit).toEqual({ code: 0, signal: null })
    expect(cli.stderr()).toBe('')
  })
})
