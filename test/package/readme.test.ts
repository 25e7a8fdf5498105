import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { promisify } from 'node:util'
import { HttpResponse, http } from 'msw'
import { setupServer } from 'msw/node'
import { Webhook, WebhookVerificationError } from 'svix'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mockApiOptionsSchema } from '../../src/options.ts'
import { createMockApi, type MockApi } from '../../src/root/index.ts'
import { type RunningServer, startServer } from '../../src/server/server.ts'
import { verifyRows } from '../../src/verify/rows.ts'
import { generateWebhookSecret } from '../../src/webhooks/signature.ts'
import { cliPath } from '../support/cli-process.ts'

const run = promisify(execFile)
const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')

/** The README's section under `heading`, up to the next heading of its level or above. */
function section(heading: string): string {
  const level = heading.indexOf(' ')
  const lines = readme.split('\n')
  const start = lines.indexOf(heading)
  if (start === -1) throw new Error(`README has no "${heading}"`)
  let inCode = false
  let end = start + 1
  for (; end < lines.length; end++) {
    const line = lines[end] ?? ''
    if (line.startsWith('```')) inCode = !inCode
    const match = !inCode && line.match(/^(#+) /)
    if (match && (match[1]?.length ?? 0) <= level) break
  }
  return lines.slice(start, end).join('\n')
}

describe('README', () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer({ port: 0 })
  })
  afterAll(() => server.close())

  it('shows the keys the default seed gives', () => {
    const banner = section('## Standalone server')
    for (const { orgId, apiKeys } of server.core.credentials) {
      expect(banner).toMatch(new RegExp(`${orgId}\\s+${apiKeys[0]}`))
    }
  })

  it('lists every option of serve --help in its option table', async () => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', cliPath, 'serve', '--help'])
    const flags = [...stdout.matchAll(/^ {2}(--[a-z-]+)/gm)].map((m) => m[1])
    expect(flags).toEqual(
      expect.arrayContaining(['--journal-size', '--no-control', '--control-token', '--state-file']),
    )
    const table = section('## Standalone server')
    for (const flag of flags.filter((f) => f !== '--help')) {
      expect(table, flag).toMatch(new RegExp(`^\\| \`${flag}[ \`]`, 'm'))
    }
  })

  it('lists every option of createMockApi in its option table', () => {
    const table = section('### Options')
    for (const option of Object.keys(mockApiOptionsSchema.shape)) {
      expect(table, option).toMatch(new RegExp(`^\\| \`${option}\` `, 'm'))
    }
  })

  it('has curl examples that work as written against the default server', async () => {
    const lines = section('### Examples with curl')
      .split('\n')
      .filter((line) => line.startsWith('curl '))
      .map((line) => line.replaceAll('http://127.0.0.1:4010', server.url))
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
    const documented = section('## Behaviour where the API description is silent')
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
      'and the names given with `--allowed-host`',
      '`--allowed-host any` turns the check off',
      'No `Host`, or two: JSON 400',
      'An absolute-form target is answered like its path',
      '`Sec-Fetch-Site` is `cross-site` or `same-site`',
      'or a body without one, gets 400',
      'without redeeming the token or setting a cookie',
      '`Referrer-Policy: no-referrer`',
      'Every answer of identify, success or error',
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
    ]) {
      expect(documented).toContain(phrase)
    }
  })

  it('has webhook snippets that work as written: the retry test and the svix verification', async () => {
    const blocks = [...section('## Webhooks').matchAll(/```ts\n([\s\S]*?)```/g)].map((m) =>
      (m[1] ?? '').replace(/^import .*$/gm, ''),
    )
    const [verification = '', retries = ''] = blocks
    const AsyncFunction = (async () => {}).constructor as new (
      ...args: string[]
    ) => (...values: unknown[]) => Promise<unknown>

    const run = new AsyncFunction(
      'HttpResponse',
      'http',
      'setupServer',
      'createMockApi',
      `${retries}\nreturn { api, server }`,
    )
    const { api, server } = (await run(HttpResponse, http, setupServer, createMockApi)) as {
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

    const secret = generateWebhookSecret()
    const rawBody = '{"object":"event","type":"a.b","api_version":"2022-11-15","data":{}}'
    const id = 'msg_readme'
    const headers = {
      'svix-id': id,
      'svix-timestamp': String(Math.floor(Date.now() / 1000)),
      'svix-signature': new Webhook(secret).sign(id, new Date(), rawBody),
    }
    const verify = new AsyncFunction(
      'Webhook',
      'secret',
      'rawBody',
      'headers',
      `${verification}\nreturn event`,
    )
    expect(await verify(Webhook, secret, rawBody, headers)).toMatchObject({ type: 'a.b' })
    await expect(verify(Webhook, secret, rawBody.replace('a.b', 'a.c'), headers)).rejects.toThrow(
      WebhookVerificationError,
    )
  })

  it('lists every option of verify --help in its option table', async () => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', cliPath, 'verify', '--help'])
    const flags = [...stdout.matchAll(/^ {2}(--[a-z-]+)/gm)].map((m) => m[1])
    expect(flags).toEqual(expect.arrayContaining(['--base-url', '--junit', '--dry-run']))
    const table = section('## Is the mock still right? Check it against your deployment')
    for (const flag of flags.filter((f) => f !== '--help')) {
      expect(table, flag).toMatch(new RegExp(`^\\| \`${flag}[ \`]`, 'm'))
    }
  })

  it("shows every row of verify's suite, in order, with its kind, in the sample report", () => {
    const sample = section('## Is the mock still right? Check it against your deployment')
    const shown = [
      ...sample.matchAll(/^ {2}(\S.*?) +(contract|decision) {2}(?:same|differs|skipped) /gm),
    ]
    expect(shown.map((m) => [m[1], m[2]])).toEqual(verifyRows.map((row) => [row.name, row.kind]))
  })
})

describe('README jest section', () => {
  it('gives the configuration examples/jest runs, which adds only where the sources are', async () => {
    const block = section('### jest').match(/```js\n([\s\S]*?)```/)?.[1] ?? ''
    const readmeConfig = (await import(`data:text/javascript,${encodeURIComponent(block)}`)).default
    const examplePath = new URL('../../examples/jest/jest.config.js', import.meta.url).href
    const { default: exampleConfig } = await import(examplePath)
    expect(Object.keys(readmeConfig).length).toBeGreaterThan(2)
    const { moduleNameMapper, testMatch, ...rest } = exampleConfig
    expect(rest).toEqual(readmeConfig)
    expect(Object.keys(moduleNameMapper)).toContain('^identify-api-mock$')
  })
})
