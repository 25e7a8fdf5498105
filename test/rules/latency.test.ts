import { describe, expect, it } from 'vitest'
import { latencySchema } from '../../src/api/latency.ts'
import { LatencyDraws } from '../../src/core/latency-draws.ts'
import { createMockApi } from '../../src/root/index.ts'

/** The value at quantile `q` of `values`, sorted. */
const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number

/** `n` draws of organisation `owner` from a mock seeded with `seed`. */
function draws(latency: object, { seed = 1, owner = 'org-1', n = 5000 } = {}): number[] {
  const parsed = latencySchema.parse(latency)
  const sequence = new LatencyDraws(seed)
  return Array.from({ length: n }, () => sequence.next(parsed, owner))
}

describe('a latency distribution', () => {
  it('gives, log-normal, a median and a 99th percentile within 10 % of those asked, over 5,000 draws', () => {
    for (const [medianMs, p99Ms] of [
      [80, 900],
      [200, 250],
      [1000, 20_000],
    ] as const) {
      const sorted = draws({ medianMs, p99Ms }).sort((a, b) => a - b)
      expect(Math.abs(quantile(sorted, 0.5) - medianMs) / medianMs).toBeLessThan(0.1)
      expect(Math.abs(quantile(sorted, 0.99) - p99Ms) / p99Ms).toBeLessThan(0.1)
    }
  })

  it('gives, uniform, delays between its bounds that reach both ends; fixed, its delay', () => {
    const uniform = draws({ uniformMs: [10, 30] })
    expect(Math.min(...uniform)).toBe(10)
    expect(Math.max(...uniform)).toBe(30)
    const mean = uniform.reduce((a, b) => a + b, 0) / uniform.length
    expect(Math.abs(mean - 20)).toBeLessThan(1)
    expect(new Set(draws({ fixedMs: 7 }, { n: 100 }))).toEqual(new Set([7]))
  })

  it('gives the same delays for the same seed and organisation, and others for another', () => {
    const latency = { medianMs: 80, p99Ms: 900 }
    expect(draws(latency, { n: 50 })).toEqual(draws(latency, { n: 50 }))
    expect(draws(latency, { n: 50, seed: 2 })).not.toEqual(draws(latency, { n: 50 }))
    expect(draws(latency, { n: 50, owner: 'org-2' })).not.toEqual(draws(latency, { n: 50 }))
  })

  it('is refused, saying what is expected, when it is none of the three', () => {
    const message = (value: unknown) => latencySchema.safeParse(value).error?.issues[0]?.message
    expect(message({ fixed: 5 })).toBe(
      'expected {"fixedMs":n}, {"uniformMs":[a,b]} or {"medianMs":m,"p99Ms":p}',
    )
    expect(message({ uniformMs: [30, 10] })).toBe('the lower bound first')
    expect(message({ medianMs: 100, p99Ms: 50 })).toBe('must not be below medianMs')
    expect(latencySchema.safeParse({ fixedMs: 600_001 }).success).toBe(false)
  })
})

describe('the latency of a mock', () => {
  const identify = (api: ReturnType<typeof createMockApi>, apiKey: string, orgId: string) =>
    api.fetch('https://api.example.test/api/v1/users/identify', {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'ada', orgId }),
    })

  /** The delays the journal notes of `n` calls by a tenant, each tenant of `tenants` calling in turn. */
  async function journaledDelays(seed: number, tenants: number, n: number) {
    const api = createMockApi({ seed, latency: { uniformMs: [0, 5] } })
    const created = []
    for (let i = 0; i < tenants; i++)
      created.push(await api.organisations.create({ orgId: `t-${i}` }))
    for (let call = 0; call < n; call++) {
      for (const { apiKey, orgId } of created) await identify(api, apiKey, orgId)
    }
    return api.requests({ orgId: 't-0' }).map((entry) => entry.delayMs)
  }

  it("draws each organisation's delays from the seed, whatever other tenants do meanwhile", async () => {
    const alone = await journaledDelays(3, 1, 12)
    expect(alone).toHaveLength(12)
    expect(new Set(alone).size).toBeGreaterThan(1)
    expect(await journaledDelays(3, 3, 12)).toEqual(alone)
    expect(await journaledDelays(4, 1, 12)).not.toEqual(alone)
  })

  it("takes an organisation's own over the mock's, back to its start on a reset of it", async () => {
    const api = createMockApi({ latency: { fixedMs: 3 } })
    const tenant = await api.organisations.create({ latency: { fixedMs: 7 } })
    await identify(api, tenant.apiKey, tenant.orgId)
    await tenant.setLatency({ fixedMs: 1 })
    await identify(api, tenant.apiKey, tenant.orgId)
    await tenant.setLatency(null)
    await identify(api, tenant.apiKey, tenant.orgId)
    const delays = () => api.requests({ orgId: tenant.orgId }).map((entry) => entry.delayMs)
    expect(delays()).toEqual([7, 1, 3])
    await tenant.setLatency({ fixedMs: 1 })
    await tenant.reset()
    await identify(api, tenant.apiKey, tenant.orgId)
    // The reset cleared its journal, and took its latency back to what it was created with.
    expect(delays()).toEqual([7])
    expect((await api.state()).organisationLatencies).toEqual([
      { orgId: tenant.orgId, latency: '{"fixedMs":7}' },
    ])
    await expect(tenant.setLatency({ fixedMs: -1 } as never)).rejects.toThrow(TypeError)
    await expect(api.organisations.setLatency('nobody', { fixedMs: 1 })).rejects.toMatchObject({
      status: 404,
    })
  })
})
