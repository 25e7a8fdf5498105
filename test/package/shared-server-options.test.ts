import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import {
  missingSetup,
  sharedServerOptions,
  startSharedServer,
} from '../../src/harness/shared-server.ts'
import { freePort } from '../support/free-port.ts'

/**
 * The shared-server entries take every server option from their config and from the variables
 * `serve` reads (which win), the data file by its path too; what they start is where they say.
 */

const saved = { ...process.env }
afterEach(() => {
  for (const name of Object.keys(process.env)) {
    if (name.startsWith('IDENTIFY_API_MOCK_') && saved[name] === undefined) delete process.env[name]
  }
  Object.assign(process.env, saved)
})

describe('the shared server options', () => {
  it('are the config, with the IDENTIFY_API_MOCK_ variables serve reads over it', () => {
    expect(sharedServerOptions({ seed: 7, port: 4100, shapes: 'full' })).toEqual({
      seed: 7,
      port: 4100,
      shapes: 'full',
    })
    process.env.IDENTIFY_API_MOCK_PORT = '4123'
    process.env.IDENTIFY_API_MOCK_SHAPES = 'varied'
    process.env.IDENTIFY_API_MOCK_TOKEN_TTL = '60'
    process.env.IDENTIFY_API_MOCK_CONTROL_TOKEN = 'from-the-job'
    process.env.IDENTIFY_API_MOCK_DATA = 'test/data.json'
    expect(sharedServerOptions({ seed: 7, port: 4100, shapes: 'full' })).toEqual({
      seed: 7,
      port: 4123,
      shapes: 'varied',
      tokenTtlSeconds: 60,
      controlToken: 'from-the-job',
      data: 'test/data.json',
    })
  })

  it('refuse a bad variable in one line that names it', () => {
    process.env.IDENTIFY_API_MOCK_PORT = 'forty'
    expect(() => sharedServerOptions()).toThrow(
      /^option '--port <port>' value 'forty' from env 'IDENTIFY_API_MOCK_PORT' is invalid\. [^\n]+$/,
    )
  })

  it("refuse each documented variable's bad value before the server starts, in one line that names it", async () => {
    const bad: Record<string, string> = {
      IDENTIFY_API_MOCK_PORT: 'abc',
      IDENTIFY_API_MOCK_SEED: 'x',
      IDENTIFY_API_MOCK_MAX_ORGS: '-1',
      IDENTIFY_API_MOCK_LATENCY: '{"bad":1}',
      IDENTIFY_API_MOCK_SHAPES: 'sideways',
      IDENTIFY_API_MOCK_ALLOWED_HOST: 'bad host',
      IDENTIFY_API_MOCK_CONTROL_TOKEN: 'é',
      IDENTIFY_API_MOCK_WEBHOOK_URL: 'notaurl',
      IDENTIFY_API_MOCK_COVERAGE_THRESHOLDS: 'identify=120',
      IDENTIFY_API_MOCK_COVERAGE_NEVER_MET: 'all',
    }
    for (const [variable, value] of Object.entries(bad)) {
      process.env[variable] = value
      const error = await startSharedServer().then(
        async ({ server }) => {
          await server.close()
          return undefined
        },
        (refused: Error) => refused,
      )
      delete process.env[variable]
      expect({ variable, name: error?.name, stack: error?.stack }).toEqual({
        variable,
        name: 'SetupError',
        stack: expect.stringMatching(new RegExp(`^identify-api-mock: [^\\n]*${variable}[^\\n]*$`)),
      })
    }
  })

  it('start the server on the port, host, data file, control token, shapes and token TTL given', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'identify-api-mock-shared-'))
    const dataFile = join(folder, 'data.json')
    writeFileSync(
      dataFile,
      JSON.stringify({
        organisations: [{ orgId: 'acme', apiKeys: ['acme-key'] }],
        users: [{ orgId: 'acme', id: 'left', registrationStatus: 'archived' }],
      }),
    )
    const port = await freePort()
    process.env.IDENTIFY_API_MOCK_PORT = String(port)
    process.env.IDENTIFY_API_MOCK_CONTROL_TOKEN = 'let-me-in'
    const { url, server } = await startSharedServer({
      host: '0.0.0.0',
      data: dataFile,
      shapes: 'varied',
      tokenTtlSeconds: 60,
      seededOrganisations: 0,
    })
    try {
      // Bound to every interface, it is called on loopback.
      expect(url).toBe(`http://127.0.0.1:${port}`)
      expect(server.core.options).toMatchObject({ shapes: 'varied', tokenTtlSeconds: 60 })
      expect((await fetch(`${url}/__mock/organisations`)).status).toBe(401)
      const listed = await fetch(`${url}/__mock/organisations`, {
        headers: { authorization: 'Bearer let-me-in' },
      })
      const { organisations } = await listed.json()
      expect(organisations.map((org: { orgId: string }) => org.orgId)).toEqual(['acme'])
      const identified = await fetch(`${url}/api/v1/users/identify`, {
        method: 'POST',
        headers: { authorization: 'Bearer acme-key', 'content-type': 'application/json' },
        body: JSON.stringify({ id: 'left', orgId: 'acme' }),
      })
      expect((await identified.json()).data.registrationStatus).toBe('archived')
    } finally {
      await server.close()
    }
  })

  it('refuse a data file that cannot be read in one line that names it', async () => {
    await expect(startSharedServer({ data: '/nowhere/data.json' })).rejects.toThrow(
      /^identify-api-mock: \/nowhere\/data\.json: cannot be read: no such file$/,
    )
  })
})

describe('a test file without the setup', () => {
  it('gets one line naming the setup to add', () => {
    const error = missingSetup('vitest', "globalSetup: ['identify-api-mock/vitest-server']")
    expect(error.message).toBe(
      "identify-api-mock: no shared server for this test file: add globalSetup: ['identify-api-mock/vitest-server'] to the vitest config",
    )
    expect(error.stack?.split('\n')).toHaveLength(1)
  })
})
