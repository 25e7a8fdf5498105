import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from '../../src/server/server.ts'
import { expectRefusal, runCli, startCli, waitForOutput } from '../support/cli-process.ts'
import { expectError, expectIdentified } from '../support/expect-body.ts'
import { mockHealth } from '../support/mock-health.ts'

/**
 * Safe defaults of the standalone server: the control endpoints can be turned off or put behind a
 * token, binding beyond loopback is warned about, and no key, sign-in token or control token
 * ever shows up in what the server prints, journals or answers.
 */

const controlPaths: Array<[string, string]> = [
  ['POST', '/__mock/reset'],
  ['POST', '/__mock/faults'],
  ['GET', '/__mock/state'],
  ['GET', '/__mock/requests'],
  ['GET', '/__mock/nothing'],
  ['GET', '/__mock'],
]

describe('startServer({ control: false })', () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer({ port: 0, control: false })
  })
  afterAll(() => server.close())

  it('answers every control endpoint 404 Not found, journals nothing, and still serves the API', async () => {
    for (const [method, path] of controlPaths) {
      const res = await fetch(server.url + path, {
        method,
        ...(method === 'POST' && { body: '{"operation":"identify","status":500}' }),
      })
      await expectError(res, 404, 'Not found')
    }
    expect(server.core.requests()).toEqual([])
    const key = server.core.credentials[0]?.apiKeys[0]
    const res = await fetch(`${server.url}/api/v1/users/identify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'still-served', orgId: 'org-1' }),
    })
    await expectIdentified(res)
  })

  it('still answers the health check, which container health checks call', async () => {
    const res = await fetch(`${server.url}/__mock/health`)
    expect({ status: res.status, body: await res.json() }).toEqual({
      status: 200,
      body: mockHealth(server.core.instanceId),
    })
    expect((await fetch(`${server.url}/__mock/health`, { method: 'HEAD' })).status).toBe(200)
  })

  it('refuses a control token without the control endpoints', async () => {
    await expect(startServer({ port: 0, control: false, controlToken: 't' })).rejects.toThrow(
      TypeError,
    )
    await expect(startServer({ port: 0, controlToken: '' })).rejects.toThrow(/control token/)
  })
})

describe('startServer({ controlToken })', () => {
  const token = 'ctl_S3cret-token'
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer({ port: 0, controlToken: token })
  })
  afterAll(() => server.close())

  it('answers 401 Unauthorized without the token, on every control endpoint, never echoing it', async () => {
    const key = server.core.credentials[0]?.apiKeys[0] ?? ''
    const wrong = [
      undefined,
      `Bearer ${token}x`,
      `Bearer ${token.slice(0, -1)}`,
      `Basic ${token}`,
      token,
      `Bearer ${key}`,
      `Bearer ${token} ${token}`,
      `Bearer\u00a0${token}`,
    ]
    const before = await server.core.state()
    for (const authorization of wrong) {
      for (const [method, path] of controlPaths) {
        const res = await fetch(server.url + path, {
          method,
          headers: authorization === undefined ? {} : { authorization },
          ...(method === 'POST' && { body: '{"operation":"identify","status":500}' }),
        })
        expect(res.headers.get('www-authenticate')).toBe('Bearer')
        const text = await res.clone().text()
        expect(text).not.toContain(token)
        await expectError(res, 401, 'Unauthorized')
      }
    }
    expect(await server.core.state()).toEqual(before)
    // No fault was queued by the refused POST /__mock/faults calls.
    const res = await fetch(`${server.url}/api/v1/users/identify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'no-fault', orgId: 'org-1' }),
    })
    await expectIdentified(res)
  })

  it('answers the health check without the token, which container health checks do not have', async () => {
    const res = await fetch(`${server.url}/__mock/health`)
    expect({ status: res.status, body: await res.json() }).toEqual({
      status: 200,
      body: mockHealth(server.core.instanceId),
    })
    expect((await fetch(`${server.url}/__mock/health`, { method: 'HEAD' })).status).toBe(200)
  })

  it('answers with the token, whatever the case of the scheme', async () => {
    for (const scheme of ['Bearer', 'bearer', 'BEARER']) {
      const res = await fetch(`${server.url}/__mock/faults`, {
        headers: { authorization: `${scheme} ${token}` },
      })
      expect(await res.json()).toEqual([])
    }
    const reset = await fetch(`${server.url}/__mock/reset`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    })
    expect(reset.status).toBe(204)
  })

  it('does not ask the API for the control token', async () => {
    const key = server.core.credentials[0]?.apiKeys[0]
    const res = await fetch(`${server.url}/api/v1/users/identify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'api-open', orgId: 'org-1' }),
    })
    await expectIdentified(res)
    const withToken = await fetch(`${server.url}/api/v1/users/org-1/x`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${token}` },
    })
    await expectError(withToken, 401, 'Unauthorized')
  })
})

describe('identify-api-mock serve: safe defaults', () => {
  it('binds 127.0.0.1 without a warning, and warns in one line when bound to every address', async () => {
    const local = await startCli()
    try {
      expect(local.url).toMatch(/^http:\/\/127\.0\.0\.1:/)
      expect(local.cli.stderr()).toBe('')
    } finally {
      local.cli.child.kill('SIGKILL')
    }
    const open = runCli(['serve', '--port', '0', '--host', '0.0.0.0'])
    try {
      await waitForOutput(open, /listening on/)
      await waitForOutput(open, /\n/, { stream: 'stderr' })
      const lines = open.stderr().trim().split('\n')
      expect(lines).toEqual([
        expect.stringMatching(
          /^identify-api-mock: warning: listening on 0\.0\.0\.0: other machines can reach the mock with its API keys, and its \/__mock control endpoints \(see --control-token, --no-control\)$/,
        ),
      ])
    } finally {
      open.child.kill('SIGKILL')
    }
    const guarded = runCli(['serve', '--port', '0', '--host', '0.0.0.0', '--no-control'])
    try {
      await waitForOutput(guarded, /\n/, { stream: 'stderr' })
      expect(guarded.stderr()).not.toContain('/__mock')
    } finally {
      guarded.child.kill('SIGKILL')
    }
  }, 30_000)

  it('--no-control answers 404 on /__mock but its health check, and says so in the banner', async () => {
    const { cli, url } = await startCli(['--no-control'])
    try {
      expect((await fetch(`${url}/__mock/health`)).status).toBe(200)
      await expectError(await fetch(`${url}/__mock/state`), 404, 'Not found')
      await expectError(await fetch(`${url}/__mock/reset`, { method: 'POST' }), 404, 'Not found')
      expect(cli.stdout()).toContain('Controls: off (--no-control).')
    } finally {
      cli.child.kill('SIGKILL')
    }
  }, 20_000)

  it('--control-token (or IDENTIFY_API_MOCK_CONTROL_TOKEN) guards /__mock, and is never printed', async () => {
    const token = 'cli-control-Secret'
    const { cli, url } = await startCli(['--control-token', token])
    try {
      await expectError(await fetch(`${url}/__mock/state`), 401, 'Unauthorized')
      const ok = await fetch(`${url}/__mock/state`, {
        headers: { authorization: `Bearer ${token}` },
      })
      expect(ok.status).toBe(200)
      expect(cli.stdout()).toContain('Authorization: Bearer <your --control-token>')
      expect(cli.stdout() + cli.stderr()).not.toContain(token)
    } finally {
      cli.child.kill('SIGKILL')
    }
    process.env.IDENTIFY_API_MOCK_CONTROL_TOKEN = token
    let fromEnv: Awaited<ReturnType<typeof startCli>>
    try {
      fromEnv = await startCli()
    } finally {
      delete process.env.IDENTIFY_API_MOCK_CONTROL_TOKEN
    }
    try {
      await expectError(await fetch(`${fromEnv.url}/__mock/state`), 401, 'Unauthorized')
      expect((await fetch(`${fromEnv.url}/__mock/health`)).status).toBe(200)
      const ok = await fetch(`${fromEnv.url}/__mock/state`, {
        headers: { authorization: `Bearer ${token}` },
      })
      expect(ok.status).toBe(200)
    } finally {
      fromEnv.cli.child.kill('SIGKILL')
    }
  }, 30_000)

  it('--journal-size bounds the journal', async () => {
    const { cli, url } = await startCli(['--journal-size', '2'])
    try {
      for (const id of ['a', 'b', 'c']) {
        await fetch(`${url}/api/v1/users/org-1/${id}`, { method: 'DELETE' })
      }
      const journal = await (await fetch(`${url}/__mock/requests`)).json()
      expect(journal.map((e: { path: string }) => e.path)).toEqual([
        '/api/v1/users/org-1/b',
        '/api/v1/users/org-1/c',
      ])
    } finally {
      cli.child.kill('SIGKILL')
    }
  }, 20_000)

  it('exits non-zero with one readable line for a bad hardening option', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['serve', '--journal-size', '0'], /--journal-size.*'0' is invalid/],
      [['serve', '--journal-size', 'many'], /--journal-size/],
      [['serve', '--no-control', '--control-token', 't'], /--control-token needs the control/],
      [['serve', '--control-token', ''], /--control-token must not be empty/],
    ]
    await Promise.all(cases.map(([args, message]) => expectRefusal(args, message)))
  }, 30_000)
})

describe('secrets never leak', () => {
  it('keeps keys, sign-in tokens and the control token out of the output, the journal and every error', async () => {
    const controlToken = 'leak-check-Control-token'
    const { cli, url } = await startCli(['--control-token', controlToken])
    try {
      const key = cli.stdout().match(/org-1\s+(sk_test_\w+)/)?.[1] ?? ''
      const otherKey = cli.stdout().match(/org-2\s+(sk_test_\w+)/)?.[1] ?? ''
      const printedAtStart = cli.stdout()
      const control = { authorization: `Bearer ${controlToken}` }
      const answers: string[] = []
      const call = async (path: string, init: RequestInit = {}) => {
        const res = await fetch(url + path, init)
        const text = await res.text()
        answers.push(text)
        return { status: res.status, text }
      }
      const json = { 'content-type': 'application/json' }
      const identified = await call('/api/v1/users/identify', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, ...json },
        body: JSON.stringify({ id: 'leaky', orgId: 'org-1' }),
      })
      const { token } = JSON.parse(identified.text)
      expect(token).toMatch(/^[0-9a-f]{64}$/)
      answers.pop() // the one answer that carries the token, by design
      // A token in the query string, a key on the wrong organisation, a near-miss key, a key
      // where the body goes, a control token on the API and an API key on the controls.
      await call(`/webview?orgId=org-1&token=${token}`)
      await call(`/webview?orgId=org-1&token=${token}`)
      await call('/api/v1/users/identify', {
        method: 'POST',
        headers: { authorization: `Bearer ${otherKey}`, ...json },
        body: JSON.stringify({ id: 'leaky', orgId: 'org-1' }),
      })
      await call('/api/v1/users/identify', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}x`, ...json },
        body: JSON.stringify({ id: key, orgId: token }),
      })
      await call('/api/v1/users/identify', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, ...json },
        body: `{"id":"${key}","orgId":"org-1","token":"${token}"}`,
      })
      await call('/api/v1/users/org-1/leaky', {
        method: 'DELETE',
        headers: { authorization: `Bearer ${controlToken}` },
      })
      await call('/__mock/faults', {
        method: 'POST',
        headers: { ...control, ...json },
        body: JSON.stringify({ operation: 'identify', status: 401, token, key }),
      })
      await call('/__mock/state', { headers: { authorization: `Bearer ${key}` } })
      const journal = await call('/__mock/requests', { headers: control })
      const state = await call('/__mock/state', { headers: control })
      await new Promise((resolve) => setTimeout(resolve, 100))

      for (const secret of [key, otherKey, token, controlToken]) {
        for (const answer of answers.filter((a) => a !== journal.text && a !== state.text)) {
          expect(answer).not.toContain(secret)
        }
        expect(journal.text).not.toContain(secret)
        expect(state.text).not.toContain(secret)
        expect(cli.stdout().slice(printedAtStart.length)).toBe('')
        expect(cli.stderr()).toBe('')
      }
      expect(JSON.parse(journal.text).map((e: { path: string }) => e.path)).toContain('/webview')
    } finally {
      cli.child.kill('SIGKILL')
    }
  }, 30_000)
})
