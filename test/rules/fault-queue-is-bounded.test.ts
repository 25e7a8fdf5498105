import { describe, expect, it } from 'vitest'
import { maxQueuedFaultBytes } from '../../src/core/faults.ts'
import { createMockApi } from '../../src/root/index.ts'
import { startServer } from '../../src/server/server.ts'

const limitMessage = (scope: string) =>
  `Invalid fault: at most 1000 faults may be queued at once ${scope}: reset, or let queued ones be taken first`

describe('the fault queue', () => {
  it('holds at most 1,000 unscoped faults: failNext throws a TypeError past it', async () => {
    const api = createMockApi()
    for (let i = 0; i < 500; i++) {
      api.failNext('identify', { status: 500 })
      api.failNext('delete', { status: 500, count: 3 })
    }
    expect(() => api.failNext('delete', { status: 404 })).toThrow(
      new TypeError(limitMessage('unscoped')),
    )
    expect(api.queuedFaults()).toHaveLength(1000)
    await api.reset()
    api.failNext('delete', { status: 404 })
    expect(api.queuedFaults()).toHaveLength(1)
  })

  it("holds 1,000 faults per organisation: one tenant's full queue never refuses another's", async () => {
    const api = createMockApi()
    const a = await api.organisations.create()
    const b = await api.organisations.create()
    for (let i = 0; i < 1000; i++) await a.failNext('identify', { status: 500 })
    await expect(a.failNext('delete', { status: 500 })).rejects.toThrow(
      new TypeError(limitMessage('for one organisation')),
    )
    await b.failNext('identify', { status: 500 })
    api.failNext('identify', { status: 400 })
    expect(api.queuedFaults()).toHaveLength(1002)
    // Taken or cleared, a fault makes room again.
    await a.reset()
    await a.failNext('delete', { status: 500 })
    expect(api.queuedFaults()).toHaveLength(3)
  })

  it('holds what every queued fault holds together to 16 MiB, whatever the number of organisations', async () => {
    const api = createMockApi({ seededOrganisations: 0 })
    // Each fault holds an id of 1,024 two-byte characters: about 2 KiB.
    const id = '€'.repeat(1024)
    let queued = 0
    let refusal: unknown
    for (let org = 0; org < 9 && refusal === undefined; org++) {
      const tenant = await api.organisations.create()
      for (let i = 0; i < 1000 && refusal === undefined; i++) {
        try {
          await tenant.failNext('identify', { status: 500, id })
          queued++
        } catch (error) {
          refusal = error
        }
      }
    }
    expect(refusal).toEqual(
      new TypeError(
        `Invalid fault: the queued faults hold ${maxQueuedFaultBytes} bytes at most: reset, or let queued ones be taken first`,
      ),
    )
    expect(queued * 2 * 1024).toBeLessThanOrEqual(maxQueuedFaultBytes)
    expect(queued).toBeGreaterThan(7000)
    expect(api.queuedFaults()).toHaveLength(queued)
  })

  it('answers POST /__mock/faults 400 past the limit, saying it', async () => {
    const server = await startServer({ port: 0 })
    try {
      for (let i = 0; i < 1000; i++) server.core.failNext('identify', { status: 500 })
      const response = await fetch(`${server.url}/__mock/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ operation: 'delete', status: 500 }),
      })
      expect(response.status).toBe(400)
      expect(await response.json()).toEqual({ code: 400, message: limitMessage('unscoped') })
      const queued = await (await fetch(`${server.url}/__mock/faults`)).json()
      expect(queued).toHaveLength(1000)
    } finally {
      await server.close()
    }
  })
})
