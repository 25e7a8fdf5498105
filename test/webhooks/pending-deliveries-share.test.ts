import { describe, expect, it } from 'vitest'
import { Webhooks } from '../../src/webhooks/delivery.ts'
import { webhookLimits } from '../../src/webhooks/limits.ts'
import { generateWebhookId } from '../../src/webhooks/signature.ts'

/**
 * The rule of the pending pool (`Webhooks.publish`): while it has room anyone takes it; when it is
 * full, the largest holder gives way, never an organisation within its share while a holder is
 * past its own. Every receiver fails and every clock stands still, so each delivery stays pending
 * after its first attempt.
 */

const share = webhookLimits.pendingDeliveries / 4

function pool() {
  const webhooks = new Webhooks({
    endpoints: [],
    retrySchedule: [3_600_000],
    timeoutMs: 1000,
    real: () => new Date(),
    clocks: { timeOf: () => 0, standsStill: () => true },
    transport: async () => ({ status: 500 }),
    has: () => true,
    pendingShare: share,
  })
  const endpointsOf = new Map<string, number>()
  /** Raises an event of `orgId`, delivered to `endpoints` endpoints of its own. */
  const raise = (orgId: string, endpoints = 1) => {
    for (let i = endpointsOf.get(orgId) ?? 0; i < endpoints; i++) {
      webhooks.add({ url: `http://127.0.0.1:9/${orgId}/${i}`, orgId })
    }
    endpointsOf.set(orgId, Math.max(endpoints, endpointsOf.get(orgId) ?? 0))
    webhooks.publish(
      {
        id: generateWebhookId('msg'),
        object: 'event',
        type: 'custom.event',
        api_version: '2022-11-15',
        timestamp: '2030-01-01T00:00:00.000Z',
        data: {},
      },
      orgId,
    )
  }
  /** Raises events of `orgId` until it holds `count` pending deliveries (10 an event). */
  const fill = (orgId: string, count: number) => {
    for (let i = 0; i < count / 10; i++) raise(orgId, 10)
  }
  return { webhooks, raise, fill }
}

const refused = { name: 'ApiError', code: 'tooManyPendingDeliveries' }

describe('the pending pool, a share for each organisation', () => {
  it('lets one organisation alone take the whole pool, and refuses its next event once full', () => {
    const { raise, fill } = pool()
    fill('a', webhookLimits.pendingDeliveries)
    expect(() => raise('a')).toThrow(expect.objectContaining(refused))
  })

  it('makes the largest holder past its share give way to an organisation within its share', () => {
    const { webhooks, raise, fill } = pool()
    fill('a', webhookLimits.pendingDeliveries)
    for (let i = 0; i < share; i++) raise('b')
    // b holds its whole share; a gave up as many of its newest deliveries.
    const givenUp = webhooks
      .deliveries({ orgId: 'a' })
      .filter(({ attempts }) => attempts.some(({ error }) => error?.startsWith('given up:')))
    expect(givenUp).toHaveLength(share)
    // Past its share, b is refused while the pool is full; a, the largest, too.
    expect(() => raise('b')).toThrow(expect.objectContaining(refused))
    expect(() => raise('a')).toThrow(expect.objectContaining(refused))
    // A third organisation within its share still gets room, from a.
    raise('c')
  })

  it('refuses an organisation within its share only when every holder is within its own', () => {
    const { raise, fill } = pool()
    for (const orgId of ['a', 'b', 'c', 'd']) fill(orgId, share)
    expect(() => raise('e')).toThrow(expect.objectContaining(refused))
  })
})
