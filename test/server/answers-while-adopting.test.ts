import { afterAll, beforeAll, expect, it } from 'vitest'
import { type RunningServer, startServer } from '../../src/server/server.ts'
import { expectDeleted, expectIdentified } from '../support/expect-body.ts'

/**
 * A large load answers as soon as its records are validated and indexed; their adoption into
 * `@msw/data` goes on in the background, one partition a turn of the event loop. Every call made
 * meanwhile sees the same records as it would once they are all adopted.
 */

const users = 60_000
let server: RunningServer
let key = ''
const staged = () => {
  const { users, learningProgress, certificates } = server.core.db
  return users.stagedCount + learningProgress.stagedCount + certificates.stagedCount
}

beforeAll(async () => {
  server = await startServer({ port: 0, seededOrganisations: 1, usersPerOrganisation: users })
  key = server.core.credentials[0]?.apiKeys[0] ?? ''
}, 120_000)
afterAll(() => server.close())

const api = (method: string, path: string, body?: object) =>
  fetch(server.url + path, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    ...(body && { body: JSON.stringify(body) }),
  })

it('answers an identify, a delete, the state, an inspector query and a reset while it adopts its records', async () => {
  expect(staged()).toBeGreaterThan(0)
  const seeded = server.core.db.users.all()
  const known = seeded[seeded.length - 1]
  const gone = seeded[seeded.length - 2]
  if (!known || !gone) throw new Error('no seeded users')

  // Sent together, answered while the last partitions still wait for their adoption.
  const [identified, deleted, newcomer, page] = await Promise.all([
    api('POST', '/api/v1/users/identify', { id: known.id, orgId: 'org-1', data: {} }),
    api('DELETE', `/api/v1/users/org-1/${gone.id}`),
    api('POST', '/api/v1/users/identify', { id: 'newcomer', orgId: 'org-1', data: {} }),
    fetch(`${server.url}/__mock/users?orgId=org-1&q=${known.userId}`),
  ])
  const stagedMeanwhile = staged()
  const body = await expectIdentified(identified)
  expect(body.id).toBe(known.id)
  expect(body.data.firstName).toBe(known.firstName)
  await expectDeleted(deleted, gone.id)
  await expectIdentified(newcomer)
  expect((await page.json()).users.map((u: { id: string }) => u.id)).toEqual([known.id])

  const state = await (await fetch(`${server.url}/__mock/state`)).json()
  expect(state.users).toHaveLength(users)
  expect(state.users.some((u: { id: string }) => u.id === gone.id)).toBe(false)
  expect(state.users.at(-1).id).toBe('newcomer')
  expect(stagedMeanwhile).toBeGreaterThan(0)

  const reset = await fetch(`${server.url}/__mock/reset`, { method: 'POST' })
  expect(reset.status).toBe(204)
  const after = server.core.db
  expect(after.users.count()).toBe(users)
  expect(after.users.stagedCount).toBe(0)
  expect(after.users.findFirst((q) => q.where({ id: gone.id }))?.userId).toBe(gone.userId)
  expect(after.users.findFirst((q) => q.where({ id: 'newcomer' }))).toBeUndefined()
}, 120_000)
