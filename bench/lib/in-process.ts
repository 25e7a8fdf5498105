import { HttpResponse, http } from 'msw'
import { setupServer } from 'msw/node'
import { buildDataset } from '../../fixtures/build-dataset.ts'
import { Database } from '../../src/model/database.ts'
import { resolveOptions } from '../../src/options/mock-api-options.ts'
import { createMockApi, type MockApi } from '../../src/root/create-mock-api.ts'
import { createRuleContext, type RuleContext } from '../../src/rules/context.ts'
import { deleteUser } from '../../src/rules/delete-user.ts'
import { identifyUser } from '../../src/rules/identify.ts'
import { mintSignInToken, redeemSignInToken } from '../../src/rules/sign-in-tokens.ts'
import { benchKey, identifyBody, jsonHeaders } from './http-load.ts'
import { medianLatencyMs } from './micro.ts'
import { interleave, median } from './stats.ts'

const orgId = 'X'
const apiKey = benchKey
const origin = 'http://api.bench.test'

/** The mock as `serve --orgs 0 --org X --api-key KEY --users N` seeds it, for `createMockApi`. */
export function sizedOptions(users: number) {
  return { seededOrganisations: 0, organisations: [{ orgId, apiKeys: [apiKey], users }] }
}

/** The rules' context over a model seeded like {@link sizedOptions}, without any transport. */
export async function sizedRuleContext(
  users: number,
): Promise<{ ctx: RuleContext; ids: string[] }> {
  const { state } = buildDataset({
    organisations: 0,
    extraOrganisations: [{ orgId, apiKeys: [apiKey], users }],
  })
  const db = new Database()
  await db.load(state)
  const ctx = createRuleContext(resolveOptions(), db)
  return { ctx, ids: state.users.map((u) => u.id) }
}

/** The direct cost of each rule (ms, median), called as `dispatch` calls it. */
export async function ruleCosts(sized: { ctx: RuleContext; ids: string[] }, timeMs: number) {
  const { ctx, ids } = sized
  const profile = (JSON.parse(identifyBody(orgId, '')) as { data: object }).data
  let next = 0
  let victim = ''
  let token = ''
  const someone = ctx.db.users.get(orgId, ids[0] as string)
  if (!someone) throw new Error('no seeded user')
  return {
    identify: await medianLatencyMs(
      () =>
        identifyUser(ctx, orgId, { id: ids[next++ % ids.length] as string, orgId, data: profile }),
      {},
      timeMs,
    ),
    delete: await medianLatencyMs(
      () => deleteUser(ctx, orgId, { orgId, id: victim }),
      {
        beforeEach: async () => {
          victim = `victim-${next++}`
          await identifyUser(ctx, orgId, { id: victim, orgId, data: profile })
        },
      },
      timeMs,
    ),
    redeem: await medianLatencyMs(
      () => redeemSignInToken(ctx, orgId, token),
      {
        beforeEach: async () => {
          token = mintSignInToken(ctx, someone)
        },
      },
      timeMs,
    ),
  }
}

/**
 * The mock in a test suite: `setupServer(...api.handlers)` and `fetch`, each call's answer read
 * whole, as a test does.
 */
export class InProcessClient {
  readonly api: MockApi

  constructor(api: MockApi) {
    this.api = api
  }

  async identify(id: string): Promise<{ status: number; token?: string }> {
    const response = await fetch(`${origin}/api/v1/users/identify`, {
      method: 'POST',
      headers: jsonHeaders(apiKey),
      body: identifyBody(orgId, id),
    })
    const body = (await response.json()) as { token?: string }
    return { status: response.status, token: body.token }
  }

  async delete(id: string): Promise<number> {
    const response = await fetch(`${origin}/api/v1/users/${orgId}/${encodeURIComponent(id)}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${apiKey}` },
    })
    await response.text()
    return response.status
  }

  async redeem(token: string): Promise<number> {
    const response = await fetch(`${origin}/webview?orgId=${orgId}&token=${token}`)
    await response.text()
    return response.status
  }

  /** Identify straight through `dispatch`, to prepare a measured call outside the measure. */
  async identifyDirect(id: string): Promise<string> {
    const response = await this.api.dispatch({
      method: 'POST',
      target: '/api/v1/users/identify',
      headers: new Headers(jsonHeaders(apiKey)),
      body: new TextEncoder().encode(identifyBody(orgId, id)),
    })
    return (JSON.parse(response.body) as { token: string }).token
  }
}

/** Median latency (ms) of identify, delete and redemption through `setupServer` + `fetch`. */
export async function inProcessCosts(client: InProcessClient, ids: string[], timeMs: number) {
  const server = setupServer(...client.api.handlers)
  server.listen({ onUnhandledFrame: 'error' })
  try {
    let next = 0
    let victim = ''
    let token = ''
    const ok = (status: number) => {
      if (status !== 200) throw new Error(`answered ${status}`)
    }
    return {
      identify: await medianLatencyMs(
        async () => ok((await client.identify(ids[next++ % ids.length] as string)).status),
        {},
        timeMs,
      ),
      delete: await medianLatencyMs(
        async () => ok(await client.delete(victim)),
        {
          beforeEach: async () => {
            victim = `victim-${next++}`
            await client.identifyDirect(victim)
          },
        },
        timeMs,
      ),
      redeem: await medianLatencyMs(
        async () => ok(await client.redeem(token)),
        {
          beforeEach: async () => {
            token = await client.identifyDirect(ids[0] as string)
          },
        },
        timeMs,
      ),
    }
  } finally {
    server.close()
  }
}

/**
 * Goal 3: identify through `setupServer` + `fetch` against the round trip of a trivial msw
 * handler answering a JSON body of the same size, `reset()` of the default dataset, and identify
 * through `api.fetch` (no msw; the goal asks at most 1/20 of the trivial round trip);
 * interleaved over `rounds`, each figure the median of its rounds' medians (ms).
 */
export async function suiteCosts(rounds: number, timeMs: number) {
  const api = createMockApi({ organisations: [{ orgId, apiKeys: [apiKey], users: 8 }] })
  await api.ready
  const client = new InProcessClient(api)
  const [someone] = (await api.state()).users.filter((u) => u.orgId === orgId)
  if (!someone) throw new Error('no seeded user')
  const sample = await api.dispatch({
    method: 'POST',
    target: '/api/v1/users/identify',
    headers: new Headers(jsonHeaders(apiKey)),
    body: new TextEncoder().encode(identifyBody(orgId, someone.id)),
  })
  const fixed = JSON.parse(sample.body) as object
  // The trivial handler is matched first: the identify calls pay for passing over it.
  const server = setupServer(
    http.post('http://trivial.bench.test/echo', () => HttpResponse.json(fixed)),
    ...api.handlers,
  )
  server.listen({ onUnhandledFrame: 'error' })
  try {
    const samples = await interleave(rounds, {
      trivial: () =>
        medianLatencyMs(
          async () => {
            const response = await fetch('http://trivial.bench.test/echo', {
              method: 'POST',
              headers: jsonHeaders(apiKey),
              body: identifyBody(orgId, someone.id),
            })
            await response.json()
          },
          {},
          timeMs,
        ),
      identify: () =>
        medianLatencyMs(
          async () => {
            const { status } = await client.identify(someone.id)
            if (status !== 200) throw new Error(`identify answered ${status}`)
          },
          {},
          timeMs,
        ),
      reset: () => medianLatencyMs(() => api.reset(), {}, timeMs),
      apiFetch: () =>
        medianLatencyMs(
          async () => {
            const response = await api.fetch(`${origin}/api/v1/users/identify`, {
              method: 'POST',
              headers: jsonHeaders(apiKey),
              body: identifyBody(orgId, someone.id),
            })
            if (response.status !== 200) throw new Error(`answered ${response.status}`)
            await response.json()
          },
          {},
          timeMs,
        ),
    })
    return {
      trivial: median(samples.trivial),
      identify: median(samples.identify),
      reset: median(samples.reset),
      apiFetch: median(samples.apiFetch),
    }
  } finally {
    server.close()
  }
}
