import { describe, expect, it } from 'vitest'
import { maxQueuedFaultBytes } from '../../src/core/faults.ts'
import { createMockApi } from '../../src/root/index.ts'

describe('the queued faults of one source', () => {
  it("hold at most its share of the queue's bytes: past it its next fault is refused, another organisation's is not", async () => {
    // A tenth of 16 MiB: about 770 faults whose id holds 2 KiB.
    const api = createMockApi({ seededOrganisations: 0, sourceShare: 0.1 })
    const share = Math.floor(maxQueuedFaultBytes * 0.1)
    const greedy = await api.organisations.create()
    const other = await api.organisations.create()
    const id = '€'.repeat(1024)
    let queued = 0
    let refusal: unknown
    while (refusal === undefined) {
      try {
        await greedy.failNext('identify', { status: 500, id })
        queued++
      } catch (error) {
        refusal = error
      }
    }
    expect(refusal).toEqual(
      new TypeError(
        `Invalid fault: one organisation's faults hold ${share} bytes at most (their share of ${maxQueuedFaultBytes}): reset, or let queued ones be taken first`,
      ),
    )
    expect(queued).toBeLessThan(1000)
    expect(queued * 2 * 1024).toBeLessThanOrEqual(share)
    // Another organisation within its share is never refused because of the first.
    for (let i = 0; i < 100; i++) await other.failNext('identify', { status: 500, id })
    api.failNext('delete', { status: 500 })
    // What a reset of the organisation lets go of is its own to take again.
    await greedy.reset()
    await greedy.failNext('identify', { status: 500, id })
    expect(api.queuedFaults()).toHaveLength(102)
  })

  it('counts the faults a snapshot restores as their source holds them, and lets them go again', async () => {
    const api = createMockApi({ seededOrganisations: 0, sourceShare: 0.1 })
    const tenant = await api.organisations.create()
    const id = '€'.repeat(1024)
    for (let i = 0; i < 100; i++) await tenant.failNext('identify', { status: 500, id })
    await tenant.saveSnapshot('with-faults')
    // Restored many times over, the faults are counted once each, as when they were queued.
    for (let i = 0; i < 20; i++) await tenant.restoreSnapshot('with-faults')
    let more = 0
    while (more < 1000) {
      try {
        await tenant.failNext('identify', { status: 500, id })
        more++
      } catch {
        break
      }
    }
    const held = api.queuedFaults({ orgId: tenant.orgId }).length
    expect(held).toBe(100 + more)
    expect(held * 2 * 1024).toBeLessThanOrEqual(Math.floor(maxQueuedFaultBytes * 0.1))
    expect(more).toBeGreaterThan(600)
  })

  it('is a quarter of the queue by default: 1,000 faults of one organisation fit', async () => {
    const api = createMockApi({ seededOrganisations: 0 })
    const tenant = await api.organisations.create()
    const id = '€'.repeat(1024)
    for (let i = 0; i < 1000; i++) await tenant.failNext('identify', { status: 500, id })
    expect(api.queuedFaults({ orgId: tenant.orgId })).toHaveLength(1000)
  })
})
