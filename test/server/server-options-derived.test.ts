import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it, vi } from 'vitest'
import * as z from 'zod'
import { mockApiOptionsSchema } from '../../src/options/mock-api-options.ts'
import { serveOptions } from '../../src/server/serve-flags.ts'
import { startServer } from '../../src/server/server.ts'
import {
  serverOptionGroups,
  serverOptionsSchema,
  splitServerOptions,
} from '../../src/server/server-options.ts'

/** The options each start handed the request listener. */
const listenerOptionsSeen = vi.hoisted((): unknown[] => [])

vi.mock('../../src/server/listener.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/server/listener.ts')>()
  return {
    ...actual,
    createRequestListener: ((site, options) => {
      listenerOptionsSeen.push(options)
      return actual.createRequestListener(site, options)
    }) as typeof actual.createRequestListener,
  }
})

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

  it('split by the groups that declare them: a flag added to a group reaches its part whole', () => {
    // A scratch copy of the groups, as the next engineer would change them: one option more for
    // the request listener, with its default.
    const listener = serverOptionGroups.listener.extend({
      maxIdleSockets: z.int().default(7).describe('a scratch option'),
    })
    const scratch = { ...serverOptionGroups, listener }
    const schema = serverOptionsSchema.and(listener)
    const resolved = schema.parse({ port: 0, maxUsers: 10, maxIdleSockets: 9 })
    const split = splitServerOptions(resolved, scratch)
    expect(split.listener).toEqual({
      maxRequestsPerSocket: 1000,
      maxConnections: 1000,
      maxIdleSockets: 9,
    })
    expect(split.listen).toEqual({ port: 0, host: '127.0.0.1' })
    expect(split.mock).toMatchObject({ maxUsers: 10 })
    expect(() => mockApiOptionsSchema.parse(split.mock)).not.toThrow()
    // An option that no group declares has no part to reach: a bug, said at once.
    const plain = serverOptionsSchema.parse({ port: 0 })
    expect(() => splitServerOptions({ ...plain, addedLater: 1 })).toThrow(/addedLater/)
  })

  it('hands each group whole to the part it configures', async () => {
    const server = await startServer({ port: 0, maxConnections: 321, maxRequestsPerSocket: 5 })
    try {
      const given = listenerOptionsSeen.at(-1) as Record<string, unknown>
      for (const name of Object.keys(serverOptionGroups.listener.shape)) {
        expect(given).toHaveProperty(name)
      }
      expect(given).toMatchObject({ maxConnections: 321, maxRequestsPerSocket: 5 })
      expect(server.server.requestTimeout).toBe(30_000)
      expect(server.server.keepAliveTimeout).toBe(5_000)
    } finally {
      await server.close()
    }
  })
})
