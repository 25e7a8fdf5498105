import { afterEach, describe, expect, it } from 'vitest'
import { createMockApi } from '../../src/root/index.ts'
import { type CliProcess, expectRefusal, runCli, waitForOutput } from '../support/cli-process.ts'
import { sendRaw } from '../support/http-client.ts'

/**
 * Every `serve` flag as an environment variable (`IDENTIFY_API_MOCK_` and the flag's name in upper
 * snake case), what a container is configured with: a repeatable flag takes a comma-separated
 * list, a switch is on unless `false`, `0` or empty, and a flag on the command line wins.
 */

const started: CliProcess[] = []
afterEach(() => {
  for (const cli of started.splice(0)) cli.child.kill('SIGKILL')
})

/** Starts `serve --json` with `env` and reads its start line. */
async function serveWith(env: Record<string, string>, args: string[] = []) {
  const cli = runCli(['serve', ...args], [], { IDENTIFY_API_MOCK_JSON: '1', ...env })
  started.push(cli)
  const [line = ''] = await waitForOutput(cli, /^\{.*\}$/m)
  const facts = JSON.parse(line) as {
    url: string
    organisations: unknown[]
    inspector: string | null
  }
  return { ...facts, stderr: cli.stderr }
}

const seeded = async (seed: number) => (await createMockApi({ seed })).credentials

describe('identify-api-mock serve with IDENTIFY_API_MOCK_ variables', () => {
  it('names a variable for every flag in --help', async () => {
    const cli = runCli(['serve', '--help'])
    await cli.exit
    const help = cli.stdout()
    const flags = [...help.matchAll(/^ {2}(?:-\w, )?--([a-z-]+)/gm)].map((match) => match[1] ?? '')
    expect(flags.length).toBeGreaterThan(20)
    for (const flag of flags.filter((flag) => flag !== 'help')) {
      const variable = `IDENTIFY_API_MOCK_${flag.replaceAll('-', '_').toUpperCase()}`
      expect(help.replace(/\s+/g, ' '), flag).toContain(`env: ${variable}`)
    }
  }, 30_000)

  it('reads values, comma-separated lists and switches from the environment', async () => {
    const facts = await serveWith({
      IDENTIFY_API_MOCK_PORT: '0',
      IDENTIFY_API_MOCK_SEED: '7',
      IDENTIFY_API_MOCK_ALLOWED_HOST: 'mock,api.internal',
      IDENTIFY_API_MOCK_ORG: 'acme',
      IDENTIFY_API_MOCK_API_KEY: 'acme-key-1,acme-key-2',
      IDENTIFY_API_MOCK_NO_CONTROL: 'false',
      IDENTIFY_API_MOCK_STRICT_USER_GROUPS: '1',
    })
    const [first, second] = await seeded(7)
    expect(facts.organisations.slice(0, 2)).toEqual([first, second])
    expect(facts.organisations[2]).toMatchObject({
      orgId: 'acme',
      apiKeys: ['acme-key-1', 'acme-key-2'],
    })
    expect(facts.inspector).not.toBeNull()
    const health = async (host: string) =>
      (await sendRaw(facts.url, { method: 'GET', target: '/__mock/health', headers: { host } }))
        .status
    expect(await health('mock:4010')).toBe(200)
    expect(await health('api.internal')).toBe(200)
    expect(await health('rebind.example')).toBe(403)
    const identify = await fetch(`${facts.url}/api/v1/users/identify`, {
      method: 'POST',
      headers: { authorization: 'Bearer acme-key-2', 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'env', orgId: 'acme', data: { userGroups: ['no-such-group'] } }),
    })
    expect(identify.status).toBe(400)
  }, 30_000)

  it('lets a flag on the command line win over its variable, and turns a switch on', async () => {
    const facts = await serveWith(
      {
        IDENTIFY_API_MOCK_SEED: '7',
        IDENTIFY_API_MOCK_NO_CONTROL: 'true',
        IDENTIFY_API_MOCK_ALLOWED_HOST: 'any',
      },
      ['--port', '0', '--seed', '8'],
    )
    const [first, second] = await seeded(8)
    expect(facts.organisations).toEqual([first, second])
    expect(facts.inspector).toBeNull()
    expect((await fetch(`${facts.url}/__mock/state`)).status).toBe(404)
    // `any` turns the Host check off, and says so.
    expect(facts.stderr()).toMatch(/^identify-api-mock: warning: --allowed-host any: /m)
    const rebound = await sendRaw(facts.url, {
      method: 'GET',
      target: '/openapi.json',
      headers: { host: 'rebind.example' },
    })
    expect(rebound.status).toBe(200)
  }, 30_000)

  it('refuses a bad value naming its variable', async () => {
    await expectRefusal(['serve'], /IDENTIFY_API_MOCK_PORT.*expected a whole number/, [], {
      IDENTIFY_API_MOCK_PORT: 'x',
    })
    await expectRefusal(
      ['serve', '--port', '0'],
      /IDENTIFY_API_MOCK_CORS: .*must not be empty/,
      [],
      {
        IDENTIFY_API_MOCK_CORS: 'http://localhost:5173,',
      },
    )
  }, 30_000)
})
