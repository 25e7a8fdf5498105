import { beforeAll, describe, expect, it } from 'vitest'
import type { Tenant } from '../../src/root/index.ts'
import { threeWaysIn, type UserWayIn } from '../support/way-in.ts'

/**
 * Every kind of failure, applied and not, as a client meets it on each way in: the standalone
 * server over `fetch` (armed through `connectMockApi`), the MSW handlers and `api.fetch` (armed
 * in-process). What the state holds afterwards is what the retry meets.
 */

/** How a call ended, as a client reads it: an answer read whole, or the error it met. */
type Outcome =
  | { status: number; headers: Headers; text: string }
  | { status?: number; headers?: Headers; error: string }

const { ways } = threeWaysIn('https://failures.example.test')

/** A tenant of its own with `ada`, her learning path and progress. */
async function tenantOf(way: UserWayIn): Promise<Tenant> {
  return way.controls.organisations.create({
    learningPaths: [{ learningPathId: 'lp-1', name: 'Safety' }],
    users: [
      {
        id: 'ada',
        registrationStatus: 'registered',
        learningPath: { learningPathId: 'lp-1', startDate: '2025-01-06', percentComplete: 40 },
      },
    ],
  })
}

/** Sends a call and reads its answer whole, or says what error it met and where. */
async function call(
  way: UserWayIn,
  path: string,
  init: RequestInit & { timeoutMs?: number } = {},
): Promise<Outcome> {
  const { timeoutMs, ...rest } = init
  const signal = timeoutMs === undefined ? undefined : AbortSignal.timeout(timeoutMs)
  let response: Response
  try {
    response = await way.fetch(`${way.baseUrl}${path}`, { ...rest, signal })
  } catch (error) {
    return { error: (error as Error).name }
  }
  try {
    return { status: response.status, headers: response.headers, text: await response.text() }
  } catch (error) {
    return { status: response.status, headers: response.headers, error: (error as Error).name }
  }
}

const deleteAda = (way: UserWayIn, tenant: Tenant, timeoutMs?: number) =>
  call(way, `/api/v1/users/${tenant.orgId}/ada`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${tenant.apiKey}` },
    timeoutMs,
  })

const identifyAda = (way: UserWayIn, tenant: Tenant) =>
  call(way, '/api/v1/users/identify', {
    method: 'POST',
    headers: { authorization: `Bearer ${tenant.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id: 'ada', orgId: tenant.orgId, data: { firstName: 'Ada' } }),
  })

/** Whether `ada` and her progress are still stored. */
async function adaStored(
  way: UserWayIn,
  tenant: Tenant,
): Promise<{ user: boolean; progress: boolean }> {
  const state = await way.controls.state()
  const user = state.users.find((u) => u.orgId === tenant.orgId && u.id === 'ada')
  const progress = state.learningProgress.some(
    (p) => p.learningPathId === 'lp-1' && p.userId === user?.userId,
  )
  return { user: user !== undefined, progress }
}

describe.each(ways)('every failure, through $name', ({ wayIn }) => {
  let way: UserWayIn
  beforeAll(() => {
    way = wayIn()
  })

  /** Arms `fault` for the tenant's next delete, runs it and a retry, and reads the state. */
  async function deleteTwice(fault: Parameters<Tenant['failNext']>, timeoutMs?: number) {
    const tenant = await tenantOf(way)
    await tenant.failNext(...fault)
    const first = await deleteAda(way, tenant, timeoutMs)
    const stored = await adaStored(way, tenant)
    const retry = await deleteAda(way, tenant)
    const calls = await tenant.calls('delete')
    return { tenant, first, stored, retry, calls }
  }

  it.each([
    ['delete-reset-applied', { error: 'TypeError' }],
    ['delete-empty-applied', { error: 'TypeError' }],
    ['delete-hang-applied', { error: 'TimeoutError' }],
  ] as const)(
    '%s: the answer is lost after the delete, and the retry answers 404',
    async (name, met) => {
      const { first, stored, retry, calls } = await deleteTwice([name], 300)
      expect(first).toEqual(met)
      expect(stored).toEqual({ user: false, progress: false })
      expect(retry).toMatchObject({ status: 404, text: '{"code":404,"message":"User not found"}' })
      const kind = name.split('-')[1]
      expect(calls.map(({ status, failure }) => ({ status, failure }))).toEqual([
        { status: 200, failure: { kind, applied: true } },
        { status: 404, failure: undefined },
      ])
    },
  )

  it.each([
    ['delete-reset', { error: 'TypeError' }],
    ['delete-empty', { error: 'TypeError' }],
    ['delete-hang', { error: 'TimeoutError' }],
  ] as const)(
    '%s: the answer is lost before the delete, and the retry deletes',
    async (name, met) => {
      const { first, stored, retry, calls } = await deleteTwice([name], 300)
      expect(first).toEqual(met)
      expect(stored).toEqual({ user: true, progress: true })
      expect(retry).toMatchObject({ status: 200, text: '{"id":"ada","deleted":true}' })
      expect(calls[0]).toMatchObject({
        status: 0,
        failure: { kind: name.split('-')[1], applied: false },
      })
    },
  )

  it('a hang with no signal ends at its bound, as a network error', async () => {
    const { first, stored } = await deleteTwice(['delete', { kind: 'hang', delayMs: 50 }])
    expect(first).toEqual({ error: 'TypeError' })
    expect(stored.user).toBe(true)
  })

  it('a 500 applied deletes first; one not applied changes nothing', async () => {
    const applied = await deleteTwice(['delete-status-500-applied'])
    expect(applied.first).toMatchObject({
      status: 500,
      text: '{"code":500,"message":"Internal server error"}',
    })
    expect(applied.stored.user).toBe(false)
    expect(applied.retry).toMatchObject({ status: 404 })
    const not = await deleteTwice(['delete', { status: 500 }])
    expect(not.first).toMatchObject({ status: 500 })
    expect(not.stored.user).toBe(true)
    expect(not.retry).toMatchObject({ status: 200 })
    expect(not.calls[0]).toMatchObject({
      status: 500,
      failure: { kind: 'status', status: 500, applied: false },
    })
  })

  it('truncated: the status and the whole length, half the body, then an error; the delete done', async () => {
    const { first, stored, retry, calls } = await deleteTwice(['delete-truncated'])
    const whole = '{"id":"ada","deleted":true}'
    expect(first).toMatchObject({ status: 200, error: 'TypeError' })
    expect((first as { headers: Headers }).headers.get('content-length')).toBe(String(whole.length))
    expect(stored.user).toBe(false)
    expect(retry).toMatchObject({ status: 404 })
    expect(calls[0]).toMatchObject({ status: 200, failure: { kind: 'truncated', applied: true } })
  })

  it.each([502, 503, 504])('gateway %i: an HTML page, never an ErrorResponse', async (status) => {
    for (const applied of [false, true]) {
      const { first, stored, retry } = await deleteTwice([
        'delete',
        { kind: 'gateway', status, applied },
      ])
      expect(first).toMatchObject({ status })
      const answer = first as { headers: Headers; text: string }
      expect(answer.headers.get('content-type')).toBe('text/html; charset=utf-8')
      expect(answer.text).toContain(`<h1>${status} `)
      expect(() => JSON.parse(answer.text)).toThrow(SyntaxError)
      expect(stored.user).toBe(!applied)
      expect(retry).toMatchObject({ status: applied ? 404 : 200 })
    }
  })

  it('gateway 429: Retry-After, the default or the one asked', async () => {
    const { first } = await deleteTwice(['delete-gateway-429'])
    expect(first).toMatchObject({ status: 429 })
    expect((first as { headers: Headers }).headers.get('retry-after')).toBe('1')
    const asked = await deleteTwice([
      'delete',
      { kind: 'gateway', status: 429, retryAfterSeconds: 7 },
    ])
    expect((asked.first as { headers: Headers }).headers.get('retry-after')).toBe('7')
  })

  it('slow: the real answer in pieces over its span; a read timeout inside it loses the answer', async () => {
    const started = performance.now()
    const whole = await deleteTwice(['delete', { kind: 'slow', delayMs: 400 }])
    expect(whole.first).toMatchObject({ status: 200, text: '{"id":"ada","deleted":true}' })
    expect(performance.now() - started).toBeGreaterThanOrEqual(350)
    const cut = await deleteTwice(['delete', { kind: 'slow', delayMs: 5000 }], 300)
    expect(cut.first).toMatchObject({ status: 200, error: 'TimeoutError' })
    expect(cut.stored.user).toBe(false)
    expect(cut.retry).toMatchObject({ status: 404 })
  })

  it('an identify applied under a reset created the user: the retry is answered as the first would have been', async () => {
    const tenant = await way.controls.organisations.create()
    await tenant.failNext('identify-reset-applied')
    expect(await identifyAda(way, tenant)).toEqual({ error: 'TypeError' })
    const created = (await way.controls.state()).users.filter((u) => u.orgId === tenant.orgId)
    expect(created.map((u) => u.id)).toEqual(['ada'])
    const retry = await identifyAda(way, tenant)
    expect(retry).toMatchObject({ status: 200 })
    const body = JSON.parse((retry as { text: string }).text)
    expect(body.data).toMatchObject({ userId: created[0]?.userId, firstName: 'Ada' })
    expect(body.token).toEqual(expect.any(String))
    // Not applied, the first call created nothing: the retry creates the user.
    const other = await way.controls.organisations.create()
    await other.failNext('identify-reset')
    expect(await identifyAda(way, other)).toEqual({ error: 'TypeError' })
    expect((await way.controls.state()).users.some((u) => u.orgId === other.orgId)).toBe(false)
  })
})
