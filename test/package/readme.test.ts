import { execFile } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { promisify } from 'node:util'
import { Webhook, WebhookVerificationError } from 'svix'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mockApiOptionsSchema } from '../../src/options/mock-api-options.ts'
import { createMockApi, type MockApi, type RedeemResult } from '../../src/root/index.ts'
import { type RunningServer, startServer } from '../../src/server/server.ts'
import type { VerifyReport } from '../../src/verify/node/index.ts'
import { verifyRows } from '../../src/verify/rows.ts'
import { generateWebhookSecret } from '../../src/webhooks/signature.ts'
import { cliPath } from '../support/cli-process.ts'
import {
  allCodeBlocks,
  type CodeBlock,
  codeBlocks,
  docSection,
  packedPackageBlocks,
  readDoc,
  repoRoot,
  runBlock,
} from '../support/docs.ts'

/**
 * The README and the guides as a reader follows them: every code block runs (here, or in the
 * packed-package test), and what they list (flags, options, rows, answers) is what the code has.
 */
const run = promisify(execFile)

const readme = 'README.md'
const testing = 'docs/guides/testing.md'
const server = 'docs/guides/server.md'
const webView = 'docs/guides/web-view.md'
const webhooks = 'docs/guides/webhooks.md'
const verify = 'docs/guides/verify.md'
const behaviour = 'docs/guides/behaviour.md'
const contract = 'docs/guides/contract.md'
const stateFile = 'docs/guides/state-file.md'
/** The files whose every code block this test accounts for. */
const documents = [
  readme,
  testing,
  server,
  webView,
  webhooks,
  verify,
  behaviour,
  contract,
  stateFile,
]

/** Every block this file runs or checks, by file and text. */
const used = new Set<string>()
const key = (file: string, code: string) => `${file}\0${code}`
/** The blocks of `lang` under `heading` of `file` (those `pick` keeps), each counted as run here. */
function blocks(file: string, heading: string, lang: string, pick = (_code: string) => true) {
  const found = codeBlocks(file, heading, lang).filter(pick)
  for (const code of found) used.add(key(file, code))
  return found
}

const helps = new Map<string, Promise<string[]>>()
/** The flags `identify-api-mock <command> --help` prints. */
function flagsOf(command: string): Promise<string[]> {
  const known = helps.get(command)
  if (known) return known
  const flags = run(process.execPath, ['--import', 'tsx', cliPath, command, '--help']).then(
    ({ stdout }) =>
      [...stdout.matchAll(/^ {2}(--[a-z-]+)/gm)]
        .map((m) => m[1] ?? '')
        .filter((flag) => flag !== '--help'),
  )
  helps.set(command, flags)
  return flags
}

const [mswDataBlock = ''] = blocks(
  testing,
  '## Reading and seeding the model with `@msw/data`',
  'ts',
)
const [, , jestTypes = ''] = blocks(testing, '## jest', 'ts')
const [leakWorkaround = ''] = blocks(
  testing,
  '## msw keeps about 50 KB per intercepted `fetch` in Node',
  'ts',
)
const [curlBlock = ''] = blocks(server, '## Examples with curl', 'sh')
const [webViewExample = ''] = blocks(webView, '## Example', 'ts')
const [verification = '', retries = ''] = blocks(webhooks, '# Webhooks', 'ts')
const [verifyFunction = ''] = blocks(
  verify,
  '# Is the mock still right? Check it against your deployment',
  'ts',
)
const [schemasBlock = ''] = blocks(contract, '# The contract: schemas and OpenAPI', 'ts')
/** Shell blocks whose every command is checked against the scripts and the CLI's flags. */
const shellBlocks = [
  ...blocks(readme, '# identify-api-mock', 'sh', (code) => code.includes('npm test')),
  ...blocks(readme, '## Standalone server', 'sh'),
  ...blocks(server, '# The standalone server', 'sh', (code) => !code.includes('curl ')),
  ...blocks(verify, '# Is the mock still right? Check it against your deployment', 'sh'),
  ...blocks(stateFile, '# Keeping the data across restarts: `--state-file`', 'sh'),
]
for (const { file, heading, lang } of packedPackageBlocks) {
  for (const code of codeBlocks(file, heading, lang)) used.add(key(file, code))
}
/** Blocks no test can run here, and why. */
const notRun: readonly { file: string; heading: string; why: string }[] = [
  {
    file: readme,
    heading: '## Install',
    why: "installs from the reader's own git host or tarball",
  },
  { file: readme, heading: '## In a container', why: 'needs a Docker daemon' },
]

describe("the README's table of imports", () => {
  it('names every code entry of the exports map', () => {
    const { exports } = JSON.parse(readFileSync(`${repoRoot}/package.json`, 'utf8')) as {
      exports: Record<string, unknown>
    }
    const table = docSection(readme, '## Package entry points')
    const entries = Object.keys(exports)
      .filter((entry) => !entry.endsWith('.json'))
      .map((entry) => `identify-api-mock${entry.slice(1)}`)
    expect(entries.filter((name) => !table.includes(`\`${name}\``))).toEqual([])
  })
})
describe('README and guides', () => {
  let defaultServer: RunningServer
  beforeAll(async () => {
    defaultServer = await startServer({ port: 0 })
  })
  afterAll(() => defaultServer.close())

  it('shows the keys the default seed gives', () => {
    const banner = docSection(readme, '## Standalone server')
    for (const { orgId, apiKeys } of defaultServer.core.credentials) {
      expect(banner).toMatch(new RegExp(`${orgId}\\s+${apiKeys[0]}`))
    }
  })

  it('names every flag of serve --help among the flags of the server guide', async () => {
    const flags = await flagsOf('serve')
    expect(flags).toEqual(
      expect.arrayContaining(['--journal-size', '--no-control', '--control-token', '--state-file']),
    )
    const brief = docSection(server, '## Flags')
    for (const flag of flags) expect(brief, flag).toContain(`\`${flag}\``)
  }, 30_000)

  it('names every option of createMockApi among the options of the testing guide', () => {
    const brief = docSection(testing, '## Options')
    for (const option of Object.keys(mockApiOptionsSchema.shape)) {
      expect(brief, option).toContain(`\`${option}\``)
    }
  })

  it('names every flag of verify --help in the verify guide', async () => {
    const flags = await flagsOf('verify')
    expect(flags).toEqual(expect.arrayContaining(['--base-url', '--junit', '--dry-run']))
    const guide = readDoc(verify)
    for (const flag of flags) expect(guide, flag).toContain(`\`${flag}\``)
  }, 30_000)

  it('has shell commands that name only scripts, commands and flags that exist', async () => {
    const scripts = Object.keys(JSON.parse(readDoc('package.json')).scripts)
    const ci = readDoc('.ci/run')
    const commands = shellBlocks.flatMap((block) =>
      block
        .replaceAll('\\\n', ' ')
        .split('\n')
        .map((line) => line.replace(/#.*$/, '').trim())
        .filter((line) => line && !/^(set|#!)/.test(line))
        .flatMap((line) => line.split('&&').map((part) => part.trim())),
    )
    expect(commands).toEqual(expect.arrayContaining(['npm ci', 'npm start', 'npm test']))
    for (const command of commands) {
      const [tool, first = '', second = ''] = command.split(/\s+/)
      if (tool === 'npm' && first === 'ci') expect(ci).toMatch(/^npm ci$/m)
      else if (tool === 'npm') expect(scripts, command).toContain(first === 'run' ? second : first)
      else if (tool === 'npx' && first === 'identify-api-mock') {
        const flags = await flagsOf(second)
        for (const flag of command.match(/--[a-z-]+/g) ?? []) expect(flags, command).toContain(flag)
      } else throw new Error(`no check for "${command}"`)
    }
  }, 30_000)

  it('has curl examples that work as written against the default server', async () => {
    const lines = curlBlock
      .split('\n')
      .filter((line) => line.startsWith('curl '))
      .map((line) => line.replaceAll('http://127.0.0.1:4010', defaultServer.url))
    const results = []
    for (const line of lines) {
      const { stdout } = await run('sh', ['-c', `${line} -w '\\n%{http_code}'`])
      const [body = '', status = ''] = stdout.split('\n')
      results.push({ status: Number(status), body: body ? JSON.parse(body) : null })
    }
    expect(results).toEqual([
      { status: 200, body: expect.objectContaining({ id: 'user-1', token: expect.any(String) }) },
      { status: 200, body: { id: 'user-1', deleted: true } },
      { status: 204, body: null },
      { status: 204, body: null },
    ])
  })

  it('documents every decision where the API description is silent', () => {
    const documented = readDoc(behaviour)
    for (const phrase of [
      'WWW-Authenticate: Bearer',
      'BEARER',
      '401 (credentials) → 400 (body) → 403 (orgId) → 200',
      '401 → 403 → 404 → 200',
      'over 1 MiB',
      'The stored value is kept',
      'first-seen order',
      'a foreign `orgId` still gets 403',
      'an `archived` user stays `archived`',
      'each sign-in token redemption',
      '2025-08-14T15:12:34+00:00',
      'always sent',
      'never reused',
      'redeemable once',
      'Exactly one user is created',
      'Changes nothing in the stored state',
      'a%2Fb%40c',
      'Allow',
      'Rate limits',
      'identify: 400, 403, 500',
      'delete: 403, 404, 500',
      '`whsec_` and base64',
      '5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, each after the attempt before',
      'a timeout (15 s) or a network error retries',
      'First attempts go out in the order raised',
      'keeps it in its body',
      'Raising an event for it answers 404 `User not found`',
      'the names given with `--allowed-host`',
      '`--allowed-host any` turns the check off',
      'any IP address literal',
      'No `Host`, or two: JSON 400',
      'An absolute-form target',
      '`Sec-Fetch-Site` is `cross-site` or `same-site`',
      'or a body without one, gets 400',
      'without redeeming the token or setting a cookie',
      '`Referrer-Policy: no-referrer`',
      'Every answer of identify (it carries a token), success or error',
      'Visible ASCII only (0x21 to 0x7E)',
      '`cors` / `--cors <origin>`',
      'longer than 1,024 characters',
      'lone surrogate',
      '1 to 256 characters',
      'an 11th drops the oldest',
      'in order of expiry',
      '`maxUsers`, `--max-users`',
      'naming the limit and the option',
      '`maxUserGroupsPerOrganisation`, `--max-groups-per-org`',
      '`maxTokensPerUser`, `--max-tokens-per-user`',
      'never holds the sweep back',
      '`sessionTtlSeconds`, `--session-ttl`',
      'the cookie carries that `Max-Age`',
      '`maxSessionsPerUser`, `--max-sessions-per-user`',
      '`maxStateBytes`, `--max-state-bytes`',
      '`maxOrganisations`, `--max-orgs`',
      '`--max-connections`',
      '503 `{"code":503,"message":"Service unavailable"}`',
      'a 401 never costs a body',
      'written as it is read (streamed)',
      'No part of an API key is stored in clear',
      '`0600`',
      'also from another PID namespace',
      'A SQLite database (`node:sqlite`)',
      'the JSON-lines file of version 0.1',
      '`serve --data FILE` / `createMockApi({ data })`',
      'identify-api-mock/data-file.schema.json',
      '`users[1].registrationStatus`',
      '`--orgs 0` (`seededOrganisations: 0`) leaves only the file',
      '409 `{"code":409,"message":"Conflict"}`',
      '`DELETE /__mock/organisations/{orgId}`',
      '`PUT /__mock/organisations/{orgId}/users/{id}`',
      '`api.reset({ orgId })`',
      '`id` without `orgId`: 400',
      '`api.calls(operation?, { orgId })`',
      'never control calls',
      "every record that belongs to a user carries that user's `userId`",
      '`GET /__mock/organisations/{orgId}/clock`',
      '`{"real":true}`',
      'an advance above 400 days',
      '[2000-01-01, 2100-01-01)',
      'An organisation with no clock of its own follows the mock',
      'a reset of the whole mock, every clock to its start',
      'a frozen clock reads the same instant after a restart',
      'The `svix-timestamp` header and its signature',
      'each entry adds `orgTime`',
      'A first attempt goes out at once, whatever the clock',
      'a retry that falls due because an earlier one in the same advance failed included',
      'A tenant handle (in-process or over HTTP) moves only its own',
      "each organisation's at its own clock",
    ]) {
      expect(documented).toContain(phrase)
    }
  })

  it('has webhook snippets that work as written: the retry test and the svix verification', async () => {
    const { api, server } = (await runBlock(retries, ['api', 'server'])) as {
      api: MockApi
      server: { close(): void }
    }
    try {
      const [delivery] = api.webhooks.deliveries()
      expect(delivery?.attempts.map((a) => a.status)).toEqual([500, 200])
      const spacing = (delivery?.attempts ?? []).map((a) => Date.parse(a.at))
      expect((spacing[1] ?? 0) - (spacing[0] ?? 0)).toBeGreaterThanOrEqual(50)
    } finally {
      server.close()
    }

    const AsyncFunction = (async () => {}).constructor as new (
      ...args: string[]
    ) => (...values: unknown[]) => Promise<unknown>
    const secret = generateWebhookSecret()
    const rawBody = '{"object":"event","type":"a.b","api_version":"2022-11-15","data":{}}'
    const id = 'msg_readme'
    const headers = {
      'svix-id': id,
      'svix-timestamp': String(Math.floor(Date.now() / 1000)),
      'svix-signature': new Webhook(secret).sign(id, new Date(), rawBody),
    }
    const check = new AsyncFunction(
      'Webhook',
      'secret',
      'rawBody',
      'headers',
      `${verification.replace(/^import .*$/gm, '')}\nreturn event`,
    )
    expect(await check(Webhook, secret, rawBody, headers)).toMatchObject({ type: 'a.b' })
    await expect(check(Webhook, secret, rawBody.replace('a.b', 'a.c'), headers)).rejects.toThrow(
      WebhookVerificationError,
    )
  })

  it('has a web-view example whose token redeems once, then not again, and expires', async () => {
    const { first, again, expired } = (await runBlock(webViewExample, [
      'first',
      'again',
      'expired',
    ])) as Record<string, RedeemResult>
    expect(first).toMatchObject({ ok: true, user: { id: 'user-42', orgId: 'acme' } })
    expect(again).toEqual({ ok: false, reason: 'already-used' })
    expect(expired).toEqual({ ok: false, reason: 'expired' })
  })

  it('has an @msw/data snippet that reads and seeds the model as written', async () => {
    const prelude =
      "import { createMockApi } from 'identify-api-mock'\n" +
      "const api = createMockApi({ organisations: [{ orgId: 'acme', apiKeys: ['k'] }] })\n"
    const { api, archived } = (await runBlock(prelude + mswDataBlock, ['api', 'archived'])) as {
      api: MockApi
      archived: { registrationStatus: string }[]
    }
    expect(archived.length).toBeGreaterThan(0)
    expect(archived.every((user) => user.registrationStatus === 'archived')).toBe(true)
    expect(api.db.users.findFirst((q) => q.where({ id: 'grace' }))).toMatchObject({
      orgId: 'acme',
      firstName: 'Grace',
    })
  })

  it('has a schema snippet that parses an answer of the mock', async () => {
    const api = createMockApi({ organisations: [{ orgId: 'acme', apiKeys: ['k'] }] })
    const answer = await api.fetch('https://api.example.test/api/v1/users/identify', {
      method: 'POST',
      headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'ada', orgId: 'acme' }),
    })
    const prelude = `const response = new Response(${JSON.stringify(await answer.text())})\n`
    const { body } = await runBlock(prelude + schemasBlock, ['body'])
    expect(body).toMatchObject({ id: 'ada', token: expect.any(String) })
  })

  it('has a verifyDeployment snippet that runs as written against a deployment', async () => {
    const deployment = await startServer({
      port: 0,
      organisations: [{ orgId: 'acme', apiKeys: ['staging-key'] }],
    })
    process.env.STAGING_KEY = 'staging-key'
    try {
      const code = verifyFunction.replace('https://staging.example.com', deployment.url)
      const { report, differences } = (await runBlock(code, ['report', 'differences'])) as {
        report: VerifyReport
        differences: unknown[]
      }
      expect(report.ok).toBe(true)
      expect(report.throwawayUser.deleted).toBe(true)
      expect(differences).toEqual([])
    } finally {
      delete process.env.STAGING_KEY
      await deployment.close()
    }
  })

  it('gives the jest matchers declaration examples/jest type-checks', () => {
    const normalise = (text: string) => text.replace(/\s+/g, '').replace(/,}/g, '}')
    const example = readFileSync(`${repoRoot}/examples/jest/jest-matchers.d.ts`, 'utf8')
    expect(normalise(jestTypes)).toBe(normalise(example))
  })

  it('gives the workaround for msw keeping sockets that the benchmark measures', () => {
    const body = (text: string) =>
      text.match(/socket\.once\('close'[\s\S]*?handle\.close\(\)\s*\}\)/)?.[0].replace(/\s+/g, '')
    const measured = readFileSync(`${repoRoot}/bench/lib/msw-socket-leak.ts`, 'utf8')
    expect(leakWorkaround).toContain("diagnostics.subscribe('net.client.socket'")
    expect(body(leakWorkaround)).toBeDefined()
    expect(body(leakWorkaround)).toBe(body(measured))
  })

  it("shows every row of verify's suite, in order, with its kind, in the sample report", () => {
    const sample = readDoc(verify)
    const shown = [
      ...sample.matchAll(/^ {2}(\S.*?) +(contract|decision) {2}(?:same|differs|skipped) /gm),
    ]
    expect(shown.map((m) => [m[1], m[2]])).toEqual(verifyRows.map((row) => [row.name, row.kind]))
  })

  it('gives the jest configuration examples/jest runs, which adds only where the sources are', async () => {
    const [block = ''] = blocks(testing, '## jest', 'js')
    const readmeConfig = (await import(`data:text/javascript,${encodeURIComponent(block)}`)).default
    const examplePath = new URL('../../examples/jest/jest.config.js', import.meta.url).href
    const { default: exampleConfig } = await import(examplePath)
    expect(Object.keys(readmeConfig).length).toBeGreaterThan(2)
    const { moduleNameMapper, testMatch, ...rest } = exampleConfig
    expect(rest).toEqual(readmeConfig)
    expect(Object.keys(moduleNameMapper)).toContain('^identify-api-mock$')
  })

  it('runs or checks every code block of the README and the guides', () => {
    const excused = (block: CodeBlock) =>
      notRun.some(({ file, heading }) => block.file === file && block.heading === heading)
    const unaccounted = documents
      .flatMap(allCodeBlocks)
      .filter((block) => !['text', 'json'].includes(block.lang))
      .filter((block) => !used.has(key(block.file, block.code)) && !excused(block))
      .map(({ file, heading, code }) => `${file} ${heading}: ${code.split('\n')[0]}`)
    expect(unaccounted).toEqual([])
  })

  it("lists every folder of examples/ in the README's examples table, once, and no other", () => {
    const folders = readdirSync(`${repoRoot}/examples`, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort()
    const table = docSection('README.md', '## Examples')
    const rows = [...table.matchAll(/^\| \[`([^`]+)`\]\(examples\/([^)]+)\) \| .+ \|$/gm)]
    expect(rows.every(([, name, folder]) => name === folder)).toBe(true)
    expect(rows.map(([, name]) => name).sort()).toEqual(folders)
  })

  it('has every guide checked by a test', () => {
    const tests = readdirSync(`${repoRoot}/test`, { recursive: true, encoding: 'utf8' })
      .filter((name) => name.endsWith('.ts'))
      .map((name) => readFileSync(`${repoRoot}/test/${name}`, 'utf8'))
      .join('\n')
    const guides = readdirSync(`${repoRoot}/docs/guides`).map((name) => `docs/guides/${name}`)
    for (const guide of guides) expect(tests, guide).toContain(guide)
  })
})
