import 'identify-api-mock/vitest'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  apiFetchWayIn,
  httpWayIn,
  mswWayIn,
  type StartWayIn,
  type WayIn,
} from '../support/way-in.ts'

const organisations = [
  { orgId: 'org-a', apiKeys: ['key-a'], users: 0 },
  { orgId: 'org-b', apiKeys: ['key-b'], users: 0 },
]

const identify = (way: WayIn, key: string, body: unknown) =>
  way.send({
    method: 'POST',
    target: '/api/v1/users/identify',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })

const remove = (way: WayIn, key: string, orgId: string, id: string) =>
  way.send({
    method: 'DELETE',
    target: `/api/v1/users/${orgId}/${id}`,
    headers: { authorization: `Bearer ${key}` },
  })

const ways: Array<[string, StartWayIn]> = [
  ['the standalone server', httpWayIn],
  ['the MSW handlers', mswWayIn],
  ['api.fetch', apiFetchWayIn],
]

describe.each(ways)('through %s, the key that authenticated a call owns it', (_, start) => {
  let way: WayIn
  beforeAll(async () => {
    way = await start({ organisations, journalSize: 3 })
  })
  afterAll(() => way.close())
  beforeEach(() => way.reset())

  it("A's key naming B's orgId (403) takes only A's scoped faults, and shows in A's journal and matchers, not B's", async () => {
    way.core.failNext('identify', { status: 500, orgId: 'org-b', id: 'ada' })
    expect((await identify(way, 'key-a', { id: 'ada', orgId: 'org-b' })).status).toBe(403)
    // B's fault is still queued: A's call never takes it.
    expect(way.core.queuedFaults()).toMatchObject([{ orgId: 'org-b', remaining: 1 }])
    way.core.failNext('identify', { status: 500, orgId: 'org-a', id: 'ada' })
    expect((await identify(way, 'key-a', { id: 'ada', orgId: 'org-b' })).status).toBe(500)
    expect(way.core.queuedFaults()).toMatchObject([{ orgId: 'org-b', remaining: 1 }])

    expect(way.core.calls('identify', { orgId: 'org-a' }).map((c) => c.status)).toEqual([403, 500])
    expect(way.core.requests({ orgId: 'org-b' })).toEqual([])
    expect(way.core).toHaveIdentified({ orgId: 'org-b' }, { orgId: 'org-a', times: 2 })
    expect(way.core).not.toHaveIdentified(undefined, { orgId: 'org-b' })
  })

  it("a delete by A's key of B's user is A's call too", async () => {
    way.core.failNext('delete', { status: 500, orgId: 'org-b' })
    expect((await remove(way, 'key-a', 'org-b', 'ada')).status).toBe(403)
    expect(way.core.queuedFaults()).toHaveLength(1)
    expect(way.core.calls('delete', { orgId: 'org-a' })).toHaveLength(1)
    expect(way.core.calls('delete', { orgId: 'org-b' })).toEqual([])
    expect(way.core).not.toHaveDeleted(undefined, { orgId: 'org-b' })
  })

  it('a call refused before authentication belongs to no organisation, whatever it names', async () => {
    expect((await remove(way, 'not-a-key', 'org-b', 'ada')).status).toBe(401)
    expect(way.core.calls('delete', { orgId: 'org-b' })).toEqual([])
    expect(way.core.calls('delete', { orgId: 'org-a' })).toEqual([])
    expect(way.core.calls('delete')).toMatchObject([
      { status: 401, request: { orgId: 'org-b', id: 'ada' } },
    ])
  })

  it("keeps each organisation's journal to its own bound: A's calls never evict B's", async () => {
    expect((await remove(way, 'key-b', 'org-b', 'b-1')).status).toBe(404)
    for (let i = 1; i <= 5; i++) {
      expect((await remove(way, 'key-a', 'org-a', `a-${i}`)).status).toBe(404)
    }
    expect(way.core.calls('delete', { orgId: 'org-b' }).map((c) => c.request.id)).toEqual(['b-1'])
    expect(way.core.calls('delete', { orgId: 'org-a' }).map((c) => c.request.id)).toEqual([
      'a-3',
      'a-4',
      'a-5',
    ])
    // The whole journal, oldest first across the organisations.
    expect(way.core.calls('delete').map((c) => c.request.id)).toEqual(['b-1', 'a-3', 'a-4', 'a-5'])
  })

  describe('a call still under way when its organisation is reset or removed', () => {
    /** Starts a delete that a scoped fault delays; resolves once the fault is taken, to its answer. */
    async function delayedDeleteOf(orgId: string, key: string) {
      way.core.failNext('delete', { status: 500, delayMs: 400, orgId })
      const answer = remove(way, key, orgId, 'slow')
      await vi.waitFor(() => expect(way.core.queuedFaults()).toEqual([]))
      return { answer }
    }

    it('journals nothing once it ends, after a reset of that organisation', async () => {
      expect((await remove(way, 'key-b', 'org-b', 'b-1')).status).toBe(404)
      const { answer } = await delayedDeleteOf('org-a', 'key-a')
      await way.core.reset({ orgId: 'org-a' })
      expect((await answer).status).toBe(500)
      expect(way.core.requests({ orgId: 'org-a' })).toEqual([])
      expect(way.core.calls('delete').map((c) => c.request.id)).toEqual(['b-1'])
    })

    it('journals nothing once it ends, after that organisation is removed', async () => {
      const { orgId, apiKey } = await way.core.organisations.create()
      const { answer } = await delayedDeleteOf(orgId, apiKey)
      await way.core.organisations.remove(orgId)
      expect((await answer).status).toBe(500)
      expect(way.core.requests()).toEqual([])
    })

    it('journals nothing once it ends, after a reset of the whole mock', async () => {
      const { answer } = await delayedDeleteOf('org-a', 'key-a')
      await way.core.reset()
      expect((await answer).status).toBe(500)
      expect(way.core.requests()).toEqual([])
    })
  })
})
