import { connectMockApi } from '../../src/client/connect-mock-api.ts'
import type { Tenant } from '../../src/control/control-surfaces.ts'
import { createMockApi } from '../../src/root/create-mock-api.ts'
import { medianLatencyMs } from './micro.ts'
import { startMockServer } from './processes.ts'
import { interleave, median } from './stats.ts'

/** The tenant a restore is measured on: 1,000 users, 50 with a token, a frozen clock, two faults. */
async function preparedTenant(
  create: (input: { users: number }) => Promise<Tenant>,
  fetcher: typeof fetch,
): Promise<Tenant> {
  const tenant = await create({ users: 1000 })
  for (let i = 0; i < 50; i++) {
    const response = await fetcher(`${tenant.baseUrl}/api/v1/users/identify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: `bench-${i}`, orgId: tenant.orgId }),
    })
    await response.body?.cancel()
  }
  await tenant.setClock({ frozenAt: '2030-01-01T00:00:00Z' })
  await tenant.failNext('identify', { status: 500 })
  await tenant.failNext('delete', { status: 500 })
  await tenant.saveSnapshot('bench')
  return tenant
}

/**
 * The median time of `restoreSnapshot` of a tenant of 1,000 users (with tokens, a frozen clock and
 * two queued faults): in-process, and over HTTP to the standalone server (in a child process)
 * through `connectMockApi`, interleaved over `rounds`.
 */
export async function snapshotCosts(rounds: number, timeMs: number) {
  const api = createMockApi()
  const server = await startMockServer()
  try {
    const inProcess = await preparedTenant((input) => api.organisations.create(input), api.fetch)
    const client = connectMockApi(server.url)
    const overHttp = await preparedTenant((input) => client.organisations.create(input), fetch)
    const samples = await interleave(rounds, {
      inProcess: () => medianLatencyMs(() => inProcess.restoreSnapshot('bench'), {}, timeMs),
      overHttp: () => medianLatencyMs(() => overHttp.restoreSnapshot('bench'), {}, timeMs),
    })
    return { inProcess: median(samples.inProcess), overHttp: median(samples.overHttp) }
  } finally {
    await server.stop()
  }
}
