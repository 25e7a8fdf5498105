import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mockApiOptionsSchema } from '../src/options.ts'
import { type RunningServer, startServer } from '../src/server/server.ts'
import { cliPath } from './support/cli-process.ts'

const run = promisify(execFile)
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')

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

  it('documents every line of decisions.md', () => {
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
})
