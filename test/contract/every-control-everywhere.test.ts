import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest'
import { connectMockApi, type MockApiClient } from '../../src/client/connect-mock-api.ts'
import { createControlOpenApiDocument } from '../../src/control/control-openapi.ts'
import {
  controlRows,
  type InProcessControls,
  type Tenant,
  type TenantMethodName,
} from '../../src/control/control-surfaces.ts'
import type { ControlTable } from '../../src/control/control-table.ts'
import { createMockApi, type MockApi } from '../../src/root/index.ts'
import { type RunningServer, startServer } from '../../src/server/server.ts'
import { controlsDoc } from '../support/controls-doc.ts'
import { sendRaw } from '../support/http-client.ts'
import { mockHealth } from '../support/mock-health.ts'

/**
 * Every row of the control table is a route over HTTP, a method in-process and through
 * `connectMockApi`, a method of the tenant handle where it acts on one organisation, a row of the
 * server guide's table and an operation of the controls' OpenAPI document: the surfaces are read
 * from the table, so a row cannot be missing from one of them.
 */

/** The dotted names of a table's rows: `organisations.create`. */
type RowNames<T, Prefix extends string = ''> = {
  [K in keyof T & string]: T[K] extends { run: unknown }
    ? `${Prefix}${K}` | RowNames<OwnRows<T[K]>, `${Prefix}${K}.`>
    : RowNames<T[K], `${Prefix}${K}.`>
}[keyof T & string]

/** The rows a row holds (`coverage.clear` of `coverage`). */
type OwnRows<R> = { [K in keyof R as R[K] extends { run: unknown } ? K : never]: R[K] }

/** Arguments for a call of each row: a row added without them is a type error here. */
type Calls = {
  [N in RowNames<ControlTable>]: (world: World) => unknown[]
}

/** The member of `T` a dotted name reaches: `webhooks.add` is `T['webhooks']['add']`. */
type At<T, N extends string> = N extends `${infer Group}.${infer Rest}`
  ? Group extends keyof T
    ? At<T[Group], Rest>
    : never
  : N extends keyof T
    ? T[N]
    : never

/** Arguments for each tenant method (by its dotted name), after the tenant's `orgId`. */
type TenantCalls = {
  [N in TenantMethodName]: (
    world: World,
  ) => At<Tenant, N> extends (...args: infer A) => unknown ? A : never
}

/**
 * What a round of calls works on: an organisation of its own, and two webhook endpoints of the
 * mock's (the second one a tenant tries to remove).
 */
interface World {
  orgId: string
  endpointId: string
  keptEndpointId: string
}

const calls: Calls = {
  health: () => [],
  reset: ({ orgId }) => [{ orgId }],
  failNext: ({ orgId }) => ['delete', { status: 500, orgId }],
  queuedFaults: ({ orgId }) => [{ orgId }],
  clearFaults: ({ orgId }) => [{ orgId }],
  redeemToken: ({ orgId }) => [orgId, 'not-a-token'],
  state: () => [],
  requests: ({ orgId }) => [{ orgId }],
  clock: () => [],
  setClock: () => [{ real: true }],
  advanceClock: () => [0],
  chaos: () => [],
  setChaos: () => [{ rate: 0, cases: ['delete-reset'], seed: 3 }],
  clearChaos: () => [],
  'organisations.list': () => [],
  'organisations.create': () => [{ users: 1 }],
  'organisations.putUser': ({ orgId }) => [orgId, 'ada', { registrationStatus: 'archived' }],
  'organisations.setShapes': ({ orgId }) => [orgId, 'varied'],
  'organisations.setLatency': ({ orgId }) => [orgId, { fixedMs: 0 }],
  'organisations.snapshots': ({ orgId }) => [orgId],
  'organisations.saveSnapshot': ({ orgId }) => [orgId, 'everywhere'],
  'organisations.restoreSnapshot': ({ orgId }) => [orgId, 'everywhere'],
  'organisations.dropSnapshot': ({ orgId }) => [orgId, 'everywhere'],
  'organisations.clock': ({ orgId }) => [orgId],
  'organisations.setClock': ({ orgId }) => [orgId, { frozenAt: '2030-01-01T00:00:00Z' }],
  'organisations.advanceClock': ({ orgId }) => [orgId, 1000],
  'organisations.chaos': ({ orgId }) => [orgId],
  'organisations.setChaos': ({ orgId }) => [orgId, { rate: 0.5, seed: 4, calls: 10 }],
  'organisations.clearChaos': ({ orgId }) => [orgId],
  'organisations.listUsers': ({ orgId }) => [orgId, { q: 'ada' }],
  'organisations.getUser': ({ orgId }) => [orgId, 'ada'],
  'organisations.deleteUser': ({ orgId }) => [orgId, 'ada'],
  'organisations.remove': ({ orgId }) => [orgId],
  'shapes.cases': () => [],
  coverage: ({ orgId }) => [{ orgId }],
  'coverage.clear': () => [],
  'failures.cases': () => [],
  'webhooks.add': () => [{ url: 'http://127.0.0.1:9/webhooks' }],
  'webhooks.list': () => [],
  'webhooks.deliveries': () => [],
  'webhooks.remove': ({ endpointId }) => [endpointId],
  'events.raise': ({ orgId }) => [{ type: 'custom.event', data: { orgId } }],
}

const tenantCalls: TenantCalls = {
  reset: () => [],
  failNext: () => ['delete-reset-applied', { id: 'ada' }],
  requests: () => [],
  putUser: () => ['ada', { registrationStatus: 'archived' }],
  raiseEvent: () => [{ type: 'user.course.started', id: 'ada' }],
  queuedFaults: () => [],
  clearFaults: () => [],
  redeemToken: () => ['not-a-token'],
  setShapes: () => ['full'],
  setLatency: () => [{ uniformMs: [0, 1] }],
  clock: () => [],
  setClock: () => [{ frozenAt: '2030-01-01T00:00:00Z' }],
  advanceClock: () => [1500],
  setChaos: () => [{ rate: 1, cases: ['identify-slow'], seed: 5 }],
  chaos: () => [],
  clearChaos: () => [],
  listUsers: () => [{}],
  getUser: () => ['ada'],
  deleteUser: () => ['ada'],
  coverage: () => [],
  saveSnapshot: () => ['mine'],
  snapshots: () => [],
  fork: () => ['mine'],
  restoreSnapshot: () => ['mine'],
  dropSnapshot: () => ['mine'],
  'webhooks.add': () => [{ url: 'http://127.0.0.1:9/tenant-webhooks' }],
  'webhooks.list': () => [],
  'webhooks.deliveries': () => [],
  'webhooks.remove': ({ keptEndpointId }) => [keptEndpointId],
  remove: () => [],
}

/** The method of `surface` at a row's place (`['organisations', 'create']`). */
function methodAt(surface: object, path: string[]): (...args: unknown[]) => unknown {
  const method = path.reduce<unknown>(
    (group, key) => (group as Record<string, unknown>)[key],
    surface,
  )
  expect(method, path.join('.')).toBeTypeOf('function')
  return method as (...args: unknown[]) => unknown
}

/** Calls every row on `surface`, the organisation's own last (it removes it), then every tenant method. */
async function callEveryRow(surface: MockApi | MockApiClient) {
  const created = await surface.organisations.create()
  const endpoint = await surface.webhooks.add({ url: 'http://127.0.0.1:9/webhooks' })
  const kept = await surface.webhooks.add({ url: 'http://127.0.0.1:9/kept' })
  const world: World = { orgId: created.orgId, endpointId: endpoint.id, keptEndpointId: kept.id }
  const ordered = controlRows().sort(
    (a, b) => Number(a.name === 'organisations.remove') - Number(b.name === 'organisations.remove'),
  )
  const results: Record<string, unknown> = {}
  for (const { name, path } of ordered) {
    const args = calls[name as keyof Calls](world)
    results[name] = await methodAt(surface, path)(...args)
  }
  const tenant = await surface.organisations.create()
  const tenantResults: Record<string, unknown> = {}
  const tenantOrder = Object.keys(tenantCalls).sort(
    (a, b) => Number(a === 'remove') - Number(b === 'remove'),
  ) as (keyof TenantCalls)[]
  for (const name of tenantOrder) {
    const method = methodAt(tenant, name.split('.'))
    tenantResults[name] = await method(...tenantCalls[name](world))
  }
  const endpoints = await surface.webhooks.list()
  return { results, tenantResults, tenant, endpoints: endpoints.map(({ id }) => id), world }
}

let server: RunningServer
beforeAll(async () => {
  server = await startServer({ port: 0 })
})
afterAll(() => server.close())

describe('every row of the control table', () => {
  it('is a method in-process and through connectMockApi, with the same results', async () => {
    const inProcess = await callEveryRow(createMockApi())
    const overHttp = await callEveryRow(connectMockApi(server.url))
    // The tenant's own rows, a row of each group and a result told apart over HTTP.
    expect(overHttp.results['organisations.putUser']).toEqual({ created: true })
    expect(inProcess.results['organisations.putUser']).toEqual({ created: true })
    expect(overHttp.results['webhooks.remove']).toBe(true)
    expect(inProcess.results['webhooks.remove']).toBe(true)
    expect(overHttp.results['organisations.deleteUser']).toEqual({ id: 'ada', deleted: true })
    expect(inProcess.results['shapes.cases']).toEqual(overHttp.results['shapes.cases'])
    expect(inProcess.results['failures.cases']).toEqual(overHttp.results['failures.cases'])
    expect(overHttp.results['failures.cases']).toContainEqual({
      name: 'delete-reset-applied',
      operation: 'delete',
      kind: 'reset',
      applied: true,
    })
    expect(overHttp.results.health).toEqual(mockHealth())
    for (const results of [inProcess.results, overHttp.results]) {
      expect(results.redeemToken).toEqual({ ok: false, reason: 'unknown' })
      // Read before it was cleared: the fault failNext queued for the organisation.
      expect(results.queuedFaults).toEqual([
        expect.objectContaining({ operation: 'delete', status: 500 }),
      ])
      expect(results['organisations.advanceClock']).toEqual({
        now: '2030-01-01T00:00:01.000Z',
        mode: 'frozen',
      })
      expect(results.advanceClock).toMatchObject({ mode: 'running' })
      expect(results['organisations.saveSnapshot']).toMatchObject({ name: 'everywhere', users: 1 })
      expect(results.setChaos).toEqual({
        rate: 0,
        cases: ['delete-reset'],
        seed: 3,
        drawn: 0,
        failed: 0,
      })
      expect(results['organisations.setChaos']).toMatchObject({ rate: 0.5, seed: 4, calls: 10 })
      expect(results.clearChaos).toBeUndefined()
    }
    expect(overHttp.tenantResults.putUser).toEqual({ created: true })
    expect(inProcess.tenantResults.putUser).toEqual({ created: true })
    expect(inProcess.tenantResults.getUser).toMatchObject({
      id: 'ada',
      orgId: inProcess.tenant.orgId,
    })
    expect(overHttp.tenantResults.getUser).toMatchObject({
      id: 'ada',
      orgId: overHttp.tenant.orgId,
    })
    for (const { tenant, tenantResults } of [inProcess, overHttp]) {
      expect(tenantResults.raiseEvent).toMatchObject({
        type: 'user.course.started',
        data: { custom_id: 'ada' },
      })
      expect(tenantResults.queuedFaults).toEqual([
        expect.objectContaining({
          operation: 'delete',
          case: 'delete-reset-applied',
          id: 'ada',
          orgId: tenant.orgId,
        }),
      ])
      expect(tenantResults.advanceClock).toEqual({
        now: '2030-01-01T00:00:01.500Z',
        mode: 'frozen',
      })
      expect(tenantResults.snapshots).toEqual([expect.objectContaining({ name: 'mine' })])
      // A fork comes back as a tenant handle of its own, on the same base URL.
      const fork = tenantResults.fork as Tenant
      expect(fork.orgId).not.toBe(tenant.orgId)
      expect(fork.baseUrl).toBe(tenant.baseUrl)
      // Its own organisation, without the snapshots of the one it was forked from.
      expect(await fork.snapshots()).toEqual([])
      await fork.remove()
      expect(tenantResults.chaos).toEqual({
        rate: 1,
        cases: ['identify-slow'],
        seed: 5,
        drawn: 0,
        failed: 0,
      })
      // The tenant's endpoint is its organisation's; the mock's is not the tenant's to remove.
      const added = tenantResults['webhooks.add'] as { id: string }
      expect(added).toMatchObject({ orgId: tenant.orgId, secret: expect.stringMatching(/^whsec_/) })
      expect(tenantResults['webhooks.list']).toEqual([
        expect.objectContaining({ id: added.id, orgId: tenant.orgId }),
      ])
      expect(tenantResults['webhooks.remove']).toBe(false)
    }
    // The tenant's removal took its endpoint; the mock's stayed.
    for (const { endpoints, world, tenantResults } of [inProcess, overHttp]) {
      expect(endpoints).toContain(world.keptEndpointId)
      expect(endpoints).not.toContain((tenantResults['webhooks.add'] as { id: string }).id)
    }
    // The tenant's remove ran last: its organisation is gone on both.
    await expect(overHttp.tenant.reset()).rejects.toMatchObject({ status: 404 })
    await expect(inProcess.tenant.reset()).rejects.toMatchObject({ status: 404 })
  })

  it('refuses a rebinding Host, a foreign Origin and a cross-site fetch with 403, on every row, changing nothing', async () => {
    const before = await server.core.state()
    const refused = [
      { host: 'rebind.attacker.example' },
      { origin: 'http://rebind.attacker.example' },
      { 'sec-fetch-site': 'cross-site' },
    ]
    const answers = []
    for (const { name, row } of controlRows()) {
      const target = row.path.replace(/:(\w+)/g, 'org-1')
      for (const headers of refused) {
        const { status, text } = await sendRaw(server.url, {
          method: row.method,
          target,
          headers: { ...headers, 'content-type': 'application/json' },
          body:
            row.method === 'GET' || row.method === 'DELETE' ? null : new TextEncoder().encode('{}'),
        })
        answers.push({ name, headers, status, body: JSON.parse(text) })
      }
    }
    expect(answers.filter((answer) => answer.status !== 403)).toEqual([])
    expect(new Set(answers.map((answer) => JSON.stringify(answer.body)))).toEqual(
      new Set(['{"code":403,"message":"Forbidden"}']),
    )
    expect(await server.core.state()).toEqual(before)
  })

  it('is a row of the server guide, which `npm run docs:controls` writes', () => {
    const guide = readFileSync(controlsDoc.path, 'utf8')
    expect(guide).toBe(controlsDoc.whole(guide))
    for (const { name, row } of controlRows()) {
      const path = row.path.replace(/:(\w+)/g, '{$1}')
      expect(guide).toContain(`| \`${row.method} ${path}\` |`)
      expect(guide).toContain(`\`${name}\``)
    }
  })

  it('is an operation of the controls’ OpenAPI document, named as its method', async () => {
    const document = createControlOpenApiDocument()
    for (const { name, row } of controlRows()) {
      const path = row.path.replace(/:(\w+)/g, '{$1}')
      const operations = document.paths[path] as Record<string, { operationId: string }>
      expect(operations[row.method.toLowerCase()]?.operationId).toBe(name)
    }
    const committed = readFileSync(new URL('../../control-openapi.json', import.meta.url), 'utf8')
    expect(committed).toBe(`${JSON.stringify(document, null, 2)}\n`)
    const served = await fetch(`${server.url}/__mock/openapi.json`)
    expect(served.status).toBe(200)
    expect(await served.json()).toEqual(JSON.parse(JSON.stringify(document)))
  })

  it('gives one tenant handle type in-process and over HTTP', () => {
    type InProcessTenant = Awaited<ReturnType<MockApi['organisations']['create']>>
    type HttpTenant = Awaited<ReturnType<MockApiClient['organisations']['create']>>
    expectTypeOf<InProcessTenant>().toEqualTypeOf<HttpTenant>()
    expectTypeOf<InProcessTenant>().toEqualTypeOf<Tenant>()
    expectTypeOf<MockApi['organisations']>().toEqualTypeOf<InProcessControls['organisations']>()
  })
})
