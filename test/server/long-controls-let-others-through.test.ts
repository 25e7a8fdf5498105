import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { maxQueuedFaultBytes } from '../../src/core/faults.ts'
import { createMockApi } from '../../src/root/index.ts'
import { type RunningServer, startServer } from '../../src/server/server.ts'
import { openConnection, writeAll } from '../support/raw-socket.ts'

/**
 * No control call stalls the others ("Limits of a running mock"): a long list is written as it is
 * read, and a large organisation is created in slices, another tenant's calls answered between
 * them. Proved by order, never by time: the other tenant's identify is answered while the list is
 * still being written, and while the creation is still under way.
 */

let server: RunningServer
let other: { orgId: string; apiKey: string }
beforeAll(async () => {
  server = await startServer({ port: 0, maxUsers: 100_000 })
  const answer = await fetch(`${server.url}/__mock/organisations`, { method: 'POST' })
  other = (await answer.json()) as { orgId: string; apiKey: string }
})
afterAll(async () => {
  await server.close()
})

/** An identify of the other tenant, over HTTP: its status. */
async function identifyOther(id: string): Promise<number> {
  const answer = await fetch(`${server.url}/api/v1/users/identify`, {
    method: 'POST',
    headers: { authorization: `Bearer ${other.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id, orgId: other.orgId }),
  })
  await answer.arrayBuffer()
  return answer.status
}

describe('GET /__mock/faults with the queue full', () => {
  it('is written in pieces, another tenant answered before the last one is made', async () => {
    // The queue filled to its byte bound by faults whose orgId and id are 1,024 characters.
    const long = (c: string, i: number) => `${c.repeat(1018)}-${String(i).padStart(5, '0')}`
    let queued = 0
    for (let o = 0; queued < 1_000_000; o++) {
      const orgId = long('o', o)
      await server.core.organisations.create({ orgId })
      try {
        for (let i = 0; i < 1000; i++) {
          server.core.queueFault({ operation: 'delete', status: 500, orgId, id: long('i', i) })
          queued++
        }
      } catch (error) {
        expect(String(error)).toContain(`${maxQueuedFaultBytes} bytes`)
        break
      }
    }
    const all = server.core.queuedFaults()
    expect(all.length).toBe(queued)

    // The pieces as they are made, and what the other tenant's identify had seen made.
    let made = 0
    let done = false
    const original = server.core.queuedFaultsJson.bind(server.core)
    const spy = vi.spyOn(server.core, 'queuedFaultsJson').mockImplementation((scope) =>
      (async function* () {
        for await (const piece of original(scope)) {
          made++
          yield piece
        }
        done = true
      })(),
    )
    try {
      // A client that asks for the faults and reads none of them yet.
      const reader = await openConnection(server.url)
      reader.socket.pause()
      await writeAll(reader.socket, 'GET /__mock/faults HTTP/1.1\r\nHost: localhost\r\n\r\n')
      await vi.waitFor(() => expect(made).toBeGreaterThan(0), { timeout: 20_000 })
      expect(await identifyOther('during-the-faults')).toBe(200)
      const madeWhenAnswered = made
      expect(done).toBe(false)
      reader.socket.resume()
      await reader.waitFor(/\r\n0\r\n\r\n$/)
      expect(made).toBeGreaterThan(madeWhenAnswered)
      const [head = '', ...rest] = reader.received().split('\r\n\r\n')
      expect(head.toLowerCase()).toContain('transfer-encoding: chunked')
      const json = rest.join('\r\n\r\n').replace(/(?:^|\r\n)[0-9a-f]+\r\n/g, '')
      expect(JSON.parse(Buffer.from(json, 'latin1').toString('utf8'))).toEqual(all)
      reader.socket.destroy()
    } finally {
      spy.mockRestore()
      server.core.clearFaults()
    }
  }, 120_000)

  it('answers a scoped read the same over HTTP as in-process', async () => {
    const { orgId } = await server.core.organisations.create()
    server.core.queueFault({ operation: 'identify', status: 500, count: 2, orgId })
    server.core.queueFault({ operation: 'delete', status: 500 })
    const scoped = await fetch(`${server.url}/__mock/faults?orgId=${orgId}`)
    expect(await scoped.json()).toEqual(server.core.queuedFaults({ orgId }))
    expect(server.core.queuedFaults({ orgId })).toHaveLength(1)
    const all = await fetch(`${server.url}/__mock/faults`)
    expect(await all.json()).toEqual(server.core.queuedFaults())
    server.core.clearFaults()
    expect(await (await fetch(`${server.url}/__mock/faults`)).json()).toEqual([])
  })
})

describe('POST /__mock/organisations {"users":10000}', () => {
  it("lets another tenant's identify through while it is under way, and creates all of it", async () => {
    const usersBefore = (await server.core.state()).users.length
    let settled = false
    const creation = fetch(`${server.url}/__mock/organisations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ users: 10_000 }),
    }).finally(() => {
      settled = true
    })
    // Its first slices are stored: the creation is under way.
    await vi.waitFor(
      async () => expect(server.core.db.users.count()).toBeGreaterThan(usersBefore),
      { timeout: 30_000, interval: 1 },
    )
    expect(await identifyOther('during-the-creation')).toBe(200)
    expect(settled).toBe(false)
    const created = await creation
    expect(created.status).toBe(201)
    const { orgId } = (await created.json()) as { orgId: string }
    const users = await fetch(`${server.url}/__mock/users?orgId=${orgId}&limit=1`)
    expect(((await users.json()) as { total: number }).total).toBe(10_000)
  }, 120_000)

  it('counts the creations under way against maxUsers: each refused or created whole', async () => {
    const before = await server.core.state()
    // Four creations at once, where maxUsers leaves room for three.
    const small = await startServer({ port: 0, maxUsers: 3_000, seededOrganisations: 0 })
    try {
      const answers = await Promise.all(
        Array.from({ length: 4 }, () =>
          fetch(`${small.url}/__mock/organisations`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ users: 1_000 }),
          }),
        ),
      )
      const statuses = answers.map((a) => a.status).sort()
      expect(statuses).toEqual([201, 201, 201, 400])
      const state = await small.core.state()
      expect(state.organisations).toHaveLength(3)
      expect(state.users).toHaveLength(3_000)
      for (const { orgId } of state.organisations) {
        expect(state.users.filter((u) => u.orgId === orgId)).toHaveLength(1_000)
      }
    } finally {
      await small.close()
    }
    expect(await server.core.state()).toEqual(before)
  }, 120_000)

  it('leaves nothing of a creation refused in its last turn, past maxStateBytes', async () => {
    const small = await startServer({ port: 0, seededOrganisations: 1, maxStateBytes: 2_000_000 })
    try {
      const before = await small.core.state()
      const refused = await fetch(`${small.url}/__mock/organisations`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ orgId: 'too-big', users: 10_000 }),
      })
      expect(refused.status).toBe(500)
      expect(await small.core.state()).toEqual(before)
      expect(small.core.stateBytes).toBeLessThanOrEqual(2_000_000)
      // Its id is free again, and a creation that fits is made whole.
      const made = await fetch(`${small.url}/__mock/organisations`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ orgId: 'too-big', users: 500 }),
      })
      expect(made.status).toBe(201)
      const state = await small.core.state()
      expect(state.users.filter((u) => u.orgId === 'too-big')).toHaveLength(500)
    } finally {
      await small.close()
    }
  }, 120_000)

  it('stores its users again after a reset of the whole mock taken between two slices', async () => {
    const api = createMockApi({ seededOrganisations: 1, usersPerOrganisation: 10 })
    await api.ready
    let settled = false
    const creation = api.organisations
      .create({ orgId: 'across-a-reset', users: 5_000 })
      .finally(() => {
        settled = true
      })
    await vi.waitFor(() => expect(api.db.users.count()).toBeGreaterThan(10), {
      timeout: 30_000,
      interval: 1,
    })
    await api.reset()
    expect(settled).toBe(false)
    // The reset took what was stored: the seed's users alone, for now.
    expect(api.db.users.count()).toBeLessThan(5_010)
    await creation
    const state = await api.state()
    expect(state.users.filter((u) => u.orgId === 'across-a-reset')).toHaveLength(5_000)
    expect(state.users).toHaveLength(5_010)
    expect(state.organisations.map((o) => o.orgId)).toContain('across-a-reset')
  }, 120_000)

  it('is refused 409, leaving nothing, when a control deletes one of its users meanwhile', async () => {
    const api = createMockApi({ seededOrganisations: 1, usersPerOrganisation: 10 })
    await api.ready
    const before = await api.state()
    const creation = api.organisations
      .create({ orgId: 'half-made', users: 5_000 })
      .catch((error: unknown) => error)
    let staged: { id: string } | undefined
    await vi.waitFor(
      () => {
        staged = api.db.users.findFirst((q) => q.where({ orgId: 'half-made' }))
        expect(staged).toBeDefined()
      },
      { timeout: 30_000, interval: 1 },
    )
    await api.organisations.deleteUser('half-made', staged?.id ?? '')
    expect(await creation).toMatchObject({ status: 409 })
    expect(await api.state()).toEqual(before)
  }, 120_000)
})
