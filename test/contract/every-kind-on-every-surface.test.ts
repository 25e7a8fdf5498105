import { readFileSync } from 'node:fs'
import { request } from 'node:http'
import { beforeAll, describe, expect, it } from 'vitest'
import { gatewayNames } from '../../src/api/gateway.ts'
import { shapeCases } from '../../src/api/shape-cases.ts'
import { createControlOpenApiDocument } from '../../src/control/control-openapi.ts'
import { failureCaseItemId, shapeItemId } from '../../src/core/coverage.ts'
import { failureCases } from '../../src/core/failure-cases.ts'
import { failureKindNames, failureKinds } from '../../src/core/failure-kinds.ts'
import { pageConfig } from '../../src/inspector/page-config.ts'
import type { Tenant } from '../../src/root/index.ts'
import { failuresDocs } from '../support/failures-doc.ts'
import { shapesDoc } from '../support/shapes-doc.ts'
import { threeWaysIn, type UserWayIn } from '../support/way-in.ts'

/**
 * Every failure kind, failure case and answer-shape case the tables declare is on every surface
 * that names or answers it: each kind, as each case's fault, settles on each way in (the server,
 * the MSW handlers, `api.fetch`) behind each gateway and is journaled and counted as its case;
 * each case is armed by its name and drawn by a chaos; each shape case answers an identify; and
 * each is listed by `failures.cases()` / `shapes.cases()` in-process and through
 * `connectMockApi`, in every enum of the OpenAPI documents and the data file's schema that lists
 * its kind, in the inspector's page and in the generated guides. Everything here is read from
 * the declarations, so a kind, a case or a shape added to its table and missing from a surface (a
 * transport's switch included, were its compiler check dropped) fails here. The control rows:
 * every-control-everywhere.test.ts.
 */

/** How long a call may take before it counts as hung: every fault here is armed for `faultMs`. */
const settleMs = 5_000
const faultMs = 50

const mock = threeWaysIn('https://every-kind.example.test')
const { api, ways } = mock

/** A tenant of its own with the user `ada`. */
const tenantOf = (way: UserWayIn): Promise<Tenant> =>
  way.controls.organisations.create({ users: [{ id: 'ada', registrationStatus: 'registered' }] })

/**
 * Sends one call of `operation` for `ada` and reads its answer whole: what the client met, a
 * status or the error's name; `TimeoutError` when it had not settled after `timeoutMs`.
 */
async function send(
  way: UserWayIn,
  tenant: Tenant,
  operation: 'identify' | 'delete',
  timeoutMs = settleMs,
): Promise<string> {
  const headers = { authorization: `Bearer ${tenant.apiKey}`, 'content-type': 'application/json' }
  const [method, path, body] =
    operation === 'identify'
      ? [
          'POST',
          '/api/v1/users/identify',
          JSON.stringify({ id: 'ada', orgId: tenant.orgId, data: { firstName: 'Ada' } }),
        ]
      : ['DELETE', `/api/v1/users/${tenant.orgId}/ada`, undefined]
  // Over HTTP, each call on a connection of its own.
  if (way.overHttp) {
    return sendOnItsOwnConnection(`${way.baseUrl}${path}`, { method, headers, body }, timeoutMs)
  }
  try {
    const signal = AbortSignal.timeout(timeoutMs)
    const response = await way.fetch(`${way.baseUrl}${path}`, { method, headers, body, signal })
    await response.arrayBuffer()
    return String(response.status)
  } catch (error) {
    return (error as Error).name
  }
}

/**
 * A call to the server over a connection of its own (`node:http`, no agent): haproxy closes the
 * connection its page was sent on when the next request comes on it, a request the mock never
 * journals, which a client that reuses connections would meet here.
 */
function sendOnItsOwnConnection(
  url: string,
  options: { method: string; headers: Record<string, string>; body: string | undefined },
  timeoutMs: number,
): Promise<string> {
  return new Promise((settle) => {
    const req = request(url, { method: options.method, headers: options.headers, agent: false })
    req.setTimeout(timeoutMs, () => {
      req.destroy()
      settle('TimeoutError')
    })
    req.on('error', (error) => settle(error.name))
    req.on('response', (res) => {
      res.on('data', () => {})
      res.on('error', (error) => settle(error.name))
      res.on('end', () => settle(String(res.statusCode)))
    })
    req.end(options.body)
  })
}

/** The newest entry of the tenant's journal, once it has `count` entries. */
async function lastEntry(tenant: Tenant, count: number) {
  await expect.poll(async () => (await tenant.requests()).length).toBe(count)
  return (await tenant.requests()).at(-1)
}

it('the failure cases hold every kind: each kind is tried below as a case', () => {
  expect(new Set(failureCases.map((c) => c.kind))).toEqual(new Set(failureKindNames))
})

describe.each(ways)('on $name', ({ wayIn }) => {
  let way: UserWayIn
  beforeAll(() => {
    way = wayIn()
  })

  it.each(gatewayNames)(
    'each case, armed as its kind for 50 ms behind gateway %s, settles, is journaled and counted as its case',
    async (gateway) => {
      const tenant = await tenantOf(way)
      await tenant.setGateway({ gateway })
      const met: Record<string, string> = {}
      let calls = 0
      for (const c of failureCases) {
        const { operation, kind, status, applied } = c
        await tenant.failNext(operation, { kind, status, applied, delayMs: faultMs })
        met[c.name] = await send(way, tenant, operation)
        calls++
        const entry = await lastEntry(tenant, calls)
        expect(entry?.failure, c.name).toMatchObject({ kind, applied })
      }
      expect(Object.entries(met).filter(([, outcome]) => outcome === 'TimeoutError')).toEqual([])
      const counted = new Map((await tenant.coverage()).items.map((i) => [i.id, i.count]))
      const uncounted = failureCases.filter((c) => !counted.get(failureCaseItemId(c.name)))
      expect(uncounted.map((c) => c.name)).toEqual([])
      await tenant.remove()
    },
    60_000,
  )

  it('each case is armed by its name as its kind, status and applied', async () => {
    const tenant = await tenantOf(way)
    for (const c of failureCases) await tenant.failNext(c.name)
    const queued = await tenant.queuedFaults()
    expect(
      queued.map(({ case: name, kind = 'status', status, applied = false }) => ({
        name,
        kind,
        status,
        applied,
      })),
    ).toEqual(
      failureCases.map(({ name, kind, status, applied }) => ({ name, kind, status, applied })),
    )
    await tenant.remove()
  })

  it('each case is drawn by a chaos naming it, and journaled as drawn', async () => {
    const tenant = await tenantOf(way)
    let calls = 0
    for (const c of failureCases) {
      await tenant.setChaos({ rate: 1, cases: [c.name], seed: 1 })
      // A hang's or a slow body's default bound is seconds: the client gives up first.
      await send(way, tenant, c.operation, 300)
      calls++
      const entry = await lastEntry(tenant, calls)
      expect(entry?.failure, c.name).toMatchObject({ kind: c.kind, case: c.name, chaos: true })
    }
    await tenant.remove()
  }, 60_000)

  it('each shape case answers an identify, journaled and counted as its shape', async () => {
    const tenant = await tenantOf(way)
    let calls = 0
    for (const { name } of shapeCases) {
      await tenant.setShapes(name)
      expect(await send(way, tenant, 'identify')).toBe('200')
      calls++
      expect((await lastEntry(tenant, calls))?.shape).toBe(name)
    }
    const counted = new Map((await tenant.coverage()).items.map((i) => [i.id, i.count]))
    expect(shapeCases.filter(({ name }) => !counted.get(shapeItemId(name)))).toEqual([])
    await tenant.remove()
  })
})

describe('the lists', () => {
  const names = (list: readonly { name: string }[]) => list.map(({ name }) => name)

  it('of the controls, in-process and through connectMockApi, give every case', async () => {
    for (const controls of [api, mock.client]) {
      expect(names(await controls.failures.cases())).toEqual(names(failureCases))
      expect(names(await controls.shapes.cases())).toEqual(names(shapeCases))
    }
  })

  it('of the OpenAPI documents and the data file’s schema hold every kind and case wherever they hold one', async () => {
    const served = await (await fetch(`${mock.server.url}/__mock/openapi.json`)).json()
    const documents = {
      'the controls’ OpenAPI document': createControlOpenApiDocument(),
      'the served one': served,
      'control-openapi.json': readJson('control-openapi.json'),
      'data-file.schema.json': readJson('data-file.schema.json'),
    }
    const declared = {
      kinds: failureKindNames,
      'failure cases': names(failureCases),
      'shape cases': names(shapeCases),
    }
    for (const [kind, members] of Object.entries(declared)) {
      let found = 0
      for (const [document, schema] of Object.entries(documents)) {
        for (const listed of enumsHoldingAny(schema, members)) {
          found++
          const missing = members.filter((member) => !listed.includes(member))
          expect(missing, `${kind} in an enum of ${document}`).toEqual([])
        }
      }
      expect(found, kind).toBeGreaterThan(0)
    }
  })

  it('of the inspector’s page give every case, with what its kind makes the client meet, and every kind’s delay', () => {
    expect(pageConfig.failureCases).toEqual(
      failureCases.map(({ name, kind }) => ({ name, summary: failureKinds[kind].summary })),
    )
    expect(Object.keys(pageConfig.delayRoles)).toEqual(failureKindNames)
  })

  it('of the guides, which `npm run docs:failures docs:shapes` write, give every kind and case', () => {
    for (const block of [...failuresDocs, shapesDoc]) {
      expect(readFileSync(block.path, 'utf8')).toBe(block.whole())
    }
    const failures = readFileSync(failuresDocs[0]?.path ?? '', 'utf8')
    for (const kind of failureKindNames) expect(failures).toContain(`| \`${kind}\` |`)
    for (const { name } of failureCases) expect(failures).toContain(`| \`${name}\` |`)
    const shapes = readFileSync(shapesDoc.path, 'utf8')
    for (const { name } of shapeCases) expect(shapes).toContain(`\`${name}\``)
  })
})

function readJson(path: string): unknown {
  return JSON.parse(readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8'))
}

/** Every `enum` of a JSON schema (or a document holding schemas) that lists one of `members`. */
function enumsHoldingAny(schema: unknown, members: readonly string[]): unknown[][] {
  const found: unknown[][] = []
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) for (const item of node) walk(item)
    else if (typeof node === 'object' && node !== null) {
      for (const [key, value] of Object.entries(node)) {
        const listsOne = Array.isArray(value) && value.some((v) => members.includes(v))
        if (key === 'enum' && listsOne) found.push(value)
        else walk(value)
      }
    }
  }
  walk(schema)
  return found
}
