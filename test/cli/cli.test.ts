import { execFile } from 'node:child_process'
import { connect, createServer, type Server } from 'node:net'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type CliProcess,
  expectRefusal,
  runCli,
  startCli,
  waitForOutput,
} from '../support/cli-process.ts'
import { readDoc } from '../support/docs.ts'
import { expectDeleted, expectError, expectIdentified } from '../support/expect-body.ts'
import { mockHealth } from '../support/mock-health.ts'

const run = promisify(execFile)

describe('identify-api-mock serve', () => {
  let cli: CliProcess
  let url: string
  beforeAll(async () => {
    ;({ cli, url } = await startCli())
  }, 20_000)
  afterAll(() => {
    cli.child.kill('SIGKILL')
  })

  it('prints the URL, every organisation with its key, and a curl line that answers 200', async () => {
    const out = cli.stdout()
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(out).toMatch(/org-1\s+sk_test_\w{24}/)
    expect(out).toMatch(/org-2\s+sk_test_\w{24}/)
    const [curl = ''] = out.match(/^ {2}curl .*$/m) ?? []
    const { stdout } = await run('sh', ['-c', `${curl.trim()} -w '\\n%{http_code}'`])
    const [body = '', status] = stdout.trim().split('\n')
    expect(status).toBe('200')
    expect(JSON.parse(body)).toMatchObject({ id: 'user-1', data: { firstName: 'Ada' } })
  })

  it('answers identify and delete over HTTP, and every control endpoint', async () => {
    const key = cli.stdout().match(/org-1\s+(sk_test_\w+)/)?.[1]
    const auth = { authorization: `Bearer ${key}` }
    const created = await fetch(`${url}/api/v1/users/identify`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'cli-user', orgId: 'org-1' }),
    })
    await expectIdentified(created)

    const health = await fetch(`${url}/__mock/health`)
    expect(await health.json()).toEqual(mockHealth())
    const state = await (await fetch(`${url}/__mock/state`)).json()
    expect(Object.keys(state)).toEqual(
      expect.arrayContaining([
        'users',
        'learningProgress',
        'certificates',
        'organisations',
        'signInTokens',
      ]),
    )
    expect(state.users).toContainEqual(expect.objectContaining({ id: 'cli-user', orgId: 'org-1' }))

    const fault = await fetch(`${url}/__mock/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ operation: 'delete', status: 500 }),
    })
    expect(fault.status).toBe(204)
    await expectError(
      await fetch(`${url}/api/v1/users/org-1/cli-user`, { method: 'DELETE', headers: auth }),
      500,
      'Internal server error',
    )
    await expectDeleted(
      await fetch(`${url}/api/v1/users/org-1/cli-user`, { method: 'DELETE', headers: auth }),
      'cli-user',
    )

    const journal = await (await fetch(`${url}/__mock/requests`)).json()
    expect(journal.map((e: { status: number }) => e.status)).toEqual(
      expect.arrayContaining([200, 500, 200]),
    )
    expect(JSON.stringify(journal)).not.toContain(String(key))

    expect((await fetch(`${url}/__mock/reset`, { method: 'POST' })).status).toBe(204)
    expect(await (await fetch(`${url}/__mock/requests`)).json()).toEqual([])
  })

  it('answers bad control input with a JSON error that says what is wrong', async () => {
    const bad = [
      ['not json', /JSON object/],
      [JSON.stringify({ operation: 'identify', status: 404 }), /status/],
      [JSON.stringify({ operation: 'update', status: 500 }), /operation/],
      [JSON.stringify({ operation: 'delete', status: 500, count: 0 }), /count/],
      [JSON.stringify({ operation: 'delete', status: 500, extra: 1 }), /extra/],
    ] as const
    for (const [body, message] of bad) {
      const res = await fetch(`${url}/__mock/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      })
      expect(res.status).toBe(400)
      const json = await res.json()
      expect(json).toEqual({ code: 400, message: expect.stringMatching(message) })
    }
    await expectError(await fetch(`${url}/__mock/nothing`), 404, 'Not found')
    const wrongMethod = await fetch(`${url}/__mock/reset`)
    expect(wrongMethod.headers.get('allow')).toBe('POST')
    await expectError(wrongMethod, 405, 'Method not allowed')
  })

  it('survives a malformed request and keeps answering', async () => {
    const reply = await new Promise<string>((resolve) => {
      const socket = connect(Number(new URL(url).port), '127.0.0.1', () =>
        socket.write('NOT HTTP\r\n\r\n'),
      )
      let data = ''
      socket.on('data', (chunk) => {
        data += chunk
      })
      socket.on('close', () => resolve(data))
    })
    expect(reply).toMatch(/^HTTP\/1\.1 400/)
    expect((await fetch(`${url}/__mock/health`)).status).toBe(200)
  })
})

describe('identify-api-mock serve: options and life cycle', () => {
  it('stops on SIGTERM and on SIGINT with exit code 0', async () => {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      const { cli } = await startCli()
      const stopped = Date.now()
      cli.child.kill(signal)
      expect(await cli.exit).toEqual({ code: 0, signal: null })
      expect(Date.now() - stopped).toBeLessThan(2000)
    }
  }, 30_000)

  it('prints one JSON line with --json', async () => {
    const cli = runCli([
      'serve',
      '--port',
      '0',
      '--json',
      '--orgs',
      '1',
      '--org',
      'acme',
      '--api-key',
      'k1',
      '--api-key',
      'k2',
    ])
    await waitForOutput(cli, /\n/)
    cli.child.kill('SIGTERM')
    const lines = cli.stdout().trim().split('\n')
    expect(lines).toHaveLength(1)
    const facts = JSON.parse(lines[0] ?? '')
    expect(facts.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(facts.organisations).toEqual([
      { orgId: 'org-1', name: expect.any(String), apiKeys: [expect.stringMatching(/^sk_test_/)] },
      { orgId: 'acme', name: expect.any(String), apiKeys: ['k1', 'k2'] },
    ])
    expect(facts.curl).toContain(facts.url)
    // The server guide's paragraph on --json names every field a script may read.
    const paragraph =
      readDoc('docs/guides/server.md')
        .split('\n\n')
        .find((text) => text.includes('`--json` prints')) ?? ''
    for (const field of Object.keys(facts)) expect(paragraph, field).toContain(`\`${field}\``)
    await cli.exit
  }, 20_000)

  it('seeds --org with --users fixture users, and --orgs 0 seeds no other organisation', async () => {
    const { cli, url } = await startCli([
      '--orgs',
      '0',
      '--org',
      'acme',
      '--api-key',
      'k',
      '--users',
      '5',
    ])
    try {
      const state = await (await fetch(`${url}/__mock/state`)).json()
      expect(state.organisations.map((o: { orgId: string }) => o.orgId)).toEqual(['acme'])
      expect(state.users).toHaveLength(5)
      const res = await fetch(`${url}/api/v1/users/identify`, {
        method: 'POST',
        headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
        body: JSON.stringify({ id: 'x', orgId: 'acme' }),
      })
      await expectIdentified(res)
    } finally {
      cli.child.kill('SIGKILL')
    }
  }, 20_000)

  it('passes --token-ttl, --auth-failure-status, --strict-user-groups, --delay and --seed through', async () => {
    const args = [
      '--token-ttl',
      '1',
      '--auth-failure-status',
      '403',
      '--strict-user-groups',
      '--delay',
      '100',
      '--seed',
      '7',
    ]
    const { cli, url } = await startCli(args)
    try {
      const key = cli.stdout().match(/org-1\s+(sk_test_\w+)/)?.[1]
      const started = performance.now()
      await expectError(
        await fetch(`${url}/api/v1/users/org-1/x`, { method: 'DELETE' }),
        403,
        'Forbidden',
      )
      expect(performance.now() - started).toBeGreaterThanOrEqual(90)
      const strict = await fetch(`${url}/api/v1/users/identify`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ id: 'x', orgId: 'org-1', data: { userGroups: ['nope'] } }),
      })
      await expectError(strict, 400, 'Invalid request parameters')
      const ok = await fetch(`${url}/api/v1/users/identify`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ id: 'x', orgId: 'org-1' }),
      })
      const { data } = await expectIdentified(ok)
      const state = await (await fetch(`${url}/__mock/state`)).json()
      const token = state.signInTokens.find((t: { userId: string }) => t.userId === data.userId)
      expect(Date.parse(token.expiresAt) - Date.parse(token.issuedAt)).toBe(1000)
      const other = runCli(['serve', '--port', '0', '--seed', '8'])
      await waitForOutput(other, /org-1\s+sk_test_\w+/)
      other.child.kill('SIGKILL')
      expect(other.stdout().match(/org-1\s+(sk_test_\w+)/)?.[1]).not.toBe(key)
    } finally {
      cli.child.kill('SIGKILL')
    }
  }, 30_000)

  it('exits non-zero with one readable line for a busy port', async () => {
    const blocker: Server = createServer()
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve))
    const port = (blocker.address() as { port: number }).port
    try {
      const cli = runCli(['serve', '--port', String(port)])
      expect((await cli.exit).code).toBe(1)
      expect(cli.stderr().trim().split('\n')).toEqual([
        `identify-api-mock: port ${port} on 127.0.0.1 is already in use: choose another with --port (0 picks a free one)`,
      ])
    } finally {
      blocker.close()
    }
  }, 20_000)

  it('exits non-zero with one readable line for a bad option', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['serve', '--bogus'], /unknown option '--bogus'/],
      [['serve', '--port', 'abc'], /--port.*'abc' is invalid/],
      [['serve', '--auth-failure-status', '402'], /--auth-failure-status.*402/],
      [['serve', '--api-key', 'k'], /--api-key needs --org/],
      [['serve', '--org', 'acme'], /--org needs at least one --api-key/],
      [['serve', '--token-ttl', '0'], /--token-ttl/],
    ]
    await Promise.all(cases.map(([args, message]) => expectRefusal(args, message)))
  }, 30_000)

  it('lists every option in --help', async () => {
    const cli = runCli(['serve', '--help'])
    expect((await cli.exit).code).toBe(0)
    for (const option of [
      '--port',
      '--host',
      '--seed',
      '--orgs',
      '--org',
      '--api-key',
      '--users',
      '--token-ttl',
      '--strict-user-groups',
      '--auth-failure-status',
      '--delay',
      '--json',
    ]) {
      expect(cli.stdout()).toContain(option)
    }
    // Each line as one, its wrapping undone: a flag says what it does, and a default once.
    const help = cli.stdout().replace(/\n {20,}/g, ' ')
    expect(help).toMatch(/--no-control +turns off the \/__mock control endpoints/)
    expect(help).toMatch(/--no-gateway-buffering +turns off nginx's proxy_buffering/)
    const readTimeout = help.split('\n').find((line) => line.includes('--gateway-read-timeout'))
    expect(readTimeout?.match(/default/g)).toHaveLength(1)
  }, 20_000)
})
