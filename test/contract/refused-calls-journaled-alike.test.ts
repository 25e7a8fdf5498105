import { afterAll, describe, expect, it } from 'vitest'
import {
  apiFetchWayIn,
  dispatchWayIn,
  httpWayIn,
  mswWayIn,
  type StartWayIn,
  type WayIn,
} from '../support/way-in.ts'

/**
 * A call refused before its key is authenticated is journaled the same through every way in: owned
 * by no organisation (the owner is always the key's), its body not read. In process, the body was
 * at hand, and a refused identify used to be journaled with it, under the organisation it named;
 * the server never read it, and journaled the same call under none with `request: null`.
 */

// The MSW handlers last: once msw listens, it intercepts every `fetch` of this file.
const ways: [string, StartWayIn][] = [
  ['the standalone server', httpWayIn],
  ['MockCore.dispatch', dispatchWayIn],
  ['api.fetch', apiFetchWayIn],
  ['the MSW handlers', mswWayIn],
]

const organisations = [
  { orgId: 'acme', apiKeys: ['acme-key'] },
  { orgId: 'other', apiKeys: ['other-key'] },
]

const started: WayIn[] = []
afterAll(() => Promise.all(started.map((way) => way.close())))

/** What the journal keeps of each call, less its time and duration, whatever the way in. */
async function refusedCallsThrough(start: StartWayIn) {
  const way = await start({ organisations })
  started.push(way)
  const body = JSON.stringify({ id: 'ada', orgId: 'acme', data: { firstName: 'Ada' } })
  const headers = { authorization: 'Bearer not-a-key', 'content-type': 'application/json' }
  const identify = await way.send({
    method: 'POST',
    target: '/api/v1/users/identify',
    headers,
    body,
  })
  const remove = await way.send({ method: 'DELETE', target: '/api/v1/users/acme/ada', headers })
  // The times aside: each clock's, and how long the call took.
  const entries = (await way.requests()).map(
    ({ time: _, orgTime: __, durationMs: ___, ...entry }) => entry,
  )
  return {
    statuses: [identify.status, remove.status],
    entries,
    ownedByAcme: way.core.requests({ orgId: 'acme' }),
  }
}

describe('a call refused before its key is authenticated', () => {
  it('is journaled alike through every way in: owned by none, its body not read', async () => {
    const seen = []
    for (const [name, start] of ways) seen.push({ name, ...(await refusedCallsThrough(start)) })
    for (const { name, statuses, entries, ownedByAcme } of seen) {
      expect(statuses, name).toEqual([401, 401])
      expect(entries, name).toEqual([
        {
          method: 'POST',
          path: '/api/v1/users/identify',
          status: 401,
          delayMs: 0,
          operation: 'identify',
          request: null,
        },
        {
          method: 'DELETE',
          path: '/api/v1/users/acme/ada',
          status: 401,
          delayMs: 0,
          operation: 'delete',
          request: { orgId: 'acme', id: 'ada' },
        },
      ])
      expect(ownedByAcme, name).toEqual([])
    }
  })
})
