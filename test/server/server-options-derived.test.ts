import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { mockApiOptionsSchema } from '../../src/options/mock-api-options.ts'
import { serveOptions } from '../../src/server/serve-flags.ts'
import { startServer } from '../../src/server/server.ts'
import {
  type ResolvedServerOptions,
  serverOptionsSchema,
  splitServerOptions,
} from '../../src/server/server-options.ts'

/**
 * The server's own options are those the mock's schema does not declare. When `startServer`
 * listed them by hand, a new server option compiled, showed in `--help`, and then failed every
 * start with "Unrecognized key" (the mock's strict schema received it).
 */

const dir = mkdtempSync(join(tmpdir(), 'server-options-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const mockNames = new Set(Object.keys(mockApiOptionsSchema.shape))
const serverOnly = Object.keys(serverOptionsSchema.shape).filter((name) => !mockNames.has(name))

/** A value for each server option that has no default; a new one without a default goes here. */
const samples: Record<string, unknown> = {
  controlToken: 'a-control-token',
  stateFile: join(dir, 'state.db'),
}

describe("the server's own options", () => {
  it('are the ones --help lists beyond the mock’s, and each is accepted by a start', async () => {
    const defaults = serverOptionsSchema.parse({}) as Record<string, unknown>
    const flags = new Set(serveOptions().map((option) => option.attributeName()))
    for (const name of ['port', 'controlToken', 'maxConnections', 'stateFile']) {
      expect(serverOnly).toContain(name)
      expect(flags).toContain(name)
    }
    const given = Object.fromEntries(
      serverOnly.map((name) => [name, name in samples ? samples[name] : defaults[name]]),
    )
    expect(serverOnly.filter((name) => given[name] === undefined)).toEqual([])
    const server = await startServer({ ...given, port: 0 })
    try {
      const headers = { authorization: `Bearer ${samples.controlToken}` }
      expect((await fetch(`${server.url}/__mock/faults`, { headers })).status).toBe(200)
    } finally {
      await server.close()
    }
  })

  it('take every option the mock does not declare, one added later included', () => {
    const resolved = serverOptionsSchema.parse({ port: 0, maxUsers: 10 })
    const withNew = { ...resolved, addedLater: 1 } as ResolvedServerOptions
    const { mock, server } = splitServerOptions(withNew)
    expect(server).toMatchObject({ port: 0, addedLater: 1 })
    expect(mock).toMatchObject({ maxUsers: 10 })
    expect(Object.keys(mock).sort()).toEqual(
      Object.keys(resolved)
        .filter((name) => mockNames.has(name))
        .sort(),
    )
    expect(() => mockApiOptionsSchema.parse(mock)).not.toThrow()
  })
})
