import { afterAll, beforeAll, expect, it } from 'vitest'
import { type ServerProcess, startServerProcess } from '../support/server-process.ts'

/**
 * What a client can make the journal hold is bounded in bytes: 1,000 invalid identify
 * calls with a 16 KiB body of `[{},{},…]` grew the server by 356 MB (a parsed body costs about 22
 * times its text), per organisation; 401 deletes with 15 KB paths filled every organisation's
 * journal and the unscoped one. Now the server holds its default journal budget (16 MiB of the
 * organisations' entries) and the small ring of refused calls, and a fixed overhead.
 */

const mib = 1024 * 1024
/** What the test allows beside the journal's budgets: the pools and caches a busy server keeps. */
const fixedOverhead = 48 * mib
/** The ring of refused calls at most: 1,000 entries of a 256-character path and 1 KiB of request. */
const refusedRing = 3 * mib

let server: ServerProcess
beforeAll(async () => {
  server = await startServerProcess({ seededOrganisations: 2 })
}, 30_000)
afterAll(() => server.stop())

/** Sends `count` requests, 16 at a time, reading every answer. */
async function send(count: number, request: (i: number) => Promise<Response>) {
  for (let i = 0; i < count; i += 16) {
    const batch = Array.from({ length: Math.min(16, count - i) }, (_, j) => request(i + j))
    await Promise.all(batch.map(async (answer) => (await answer).arrayBuffer()))
  }
}

it('holds its budget, and a fixed overhead, through a flood of 16 KiB bodies and of 401s with long paths', async () => {
  const organisations = (
    (await (await fetch(`${server.url}/__mock/organisations`)).json()) as {
      organisations: { orgId: string; apiKeys: string[] }[]
    }
  ).organisations
  const before = await server.memory()
  const body = `[${Array(5460).fill('{}').join(',')}]`
  const longPath = (orgId: string, i: number) => `/api/v1/users/${orgId}/${i}-${'p'.repeat(15_000)}`
  for (const [n, { orgId, apiKeys }] of organisations.entries()) {
    // The first organisation's calls fill the budget; the second's take it over.
    await send(n === 0 ? 1000 : 500, () =>
      fetch(`${server.url}/api/v1/users/identify`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKeys[0]}`, 'content-type': 'application/json' },
        body,
      }),
    )
    await send(500, (i) =>
      fetch(`${server.url}${longPath(orgId, i)}`, {
        method: 'DELETE',
        headers: { authorization: 'Bearer not-a-key' },
      }),
    )
  }
  await send(500, (i) => fetch(`${server.url}${longPath('nobody', i)}`, { method: 'DELETE' }))
  const after = await server.memory()
  const budget = 16 * mib + refusedRing
  expect(after.heapUsed - before.heapUsed).toBeLessThanOrEqual(budget + 8 * mib)
  expect(after.rss - before.rss).toBeLessThanOrEqual(budget + fixedOverhead)
  // Each organisation still has its newest entries, and the journal is read whole.
  const journal = await fetch(`${server.url}/__mock/requests`)
  expect(journal.status).toBe(200)
  const entries = (await journal.json()) as { status: number; path: string }[]
  expect(entries.filter((e) => e.status === 400).length).toBeGreaterThan(500)
  expect(entries.filter((e) => e.status === 401).length).toBe(1000)
  expect(Math.max(...entries.map((e) => e.path.length))).toBeLessThanOrEqual(257)
}, 120_000)
