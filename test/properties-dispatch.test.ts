import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { MockCore, type WireResponse } from '../src/advanced.ts'
import type { MockState } from '../src/index.ts'
import { expectAnswer, expectedAnswer, expectedCall, pathOf } from './support/api-oracle.ts'
import { announceSeed, anyString, apiTarget, httpMethod } from './support/arbitraries.ts'
import {
  type ApiCase,
  assertApiCases,
  type MockConfiguration,
  mockConfigurations,
  worldOf,
} from './support/property-world.ts'

/**
 * The bulk of the property-based cases, through `MockCore.dispatch`: the one function both the
 * MSW handlers and the HTTP server call, so every rule is exercised here at full speed, with
 * header values no HTTP transport could even carry. properties-msw and properties-http send a
 * subset of the same cases through the two real ways in.
 */
announceSeed('properties-dispatch')

const cores = {} as Record<MockConfiguration, MockCore>
let seeded: MockState
let keys: string[]
let credentials: MockCore['credentials']

beforeAll(async () => {
  for (const name of Object.keys(mockConfigurations) as MockConfiguration[]) {
    cores[name] = new MockCore(mockConfigurations[name])
    await cores[name].ready
  }
  seeded = await cores.default.state()
  credentials = cores.default.credentials
  keys = credentials.flatMap((c) => c.apiKeys)
})

/** Runs one case on a freshly reset mock and checks the answer, the state and the journal. */
async function check(c: ApiCase) {
  const core = cores[c.configuration]
  await core.reset()
  if (c.fault) core.failNext(c.fault.operation, { status: c.fault.status })
  const world = worldOf(c.configuration, core.credentials, seeded, c.fault)
  const headers = new Map<string, string>()
  if (c.authorization !== null) headers.set('authorization', c.authorization)
  if (c.contentType !== null) headers.set('content-type', c.contentType)
  const response: WireResponse = await core.dispatch({
    method: c.method,
    target: c.target,
    headers: { get: (name) => headers.get(name.toLowerCase()) ?? null },
    body: c.body,
  })
  const observed = {
    status: response.status,
    header: (name: string) => response.headers[name] ?? null,
    text: response.body,
  }
  expectAnswer(world, expectedAnswer(world, c), observed, await core.state())

  const journal = core.requests()
  expect(journal).toEqual([
    {
      time: '2025-06-01T09:00:00+00:00',
      method: c.method,
      path: pathOf(c.target),
      status: response.status,
      durationMs: expect.any(Number),
      ...expectedCall(world, c, response.status),
    },
  ])
  const token = response.status === 200 ? (JSON.parse(response.body).token as string) : undefined
  for (const secret of [...keys, ...(token ? [token] : [])]) {
    expect(JSON.stringify(journal)).not.toContain(secret)
    if (response.status !== 200) expect(response.body).not.toContain(secret)
  }
}

describe('properties through MockCore.dispatch', () => {
  it('answers any identify call as the contract says, and changes nothing on an error', async () => {
    const method = fc.oneof(
      { weight: 12, arbitrary: fc.constant('POST') },
      { weight: 1, arbitrary: fc.constantFrom('post', 'Post', 'GET', 'PUT', 'POST ', '') },
      { weight: 1, arbitrary: anyString },
    )
    const target = fc.oneof(
      { weight: 12, arbitrary: fc.constant('/api/v1/users/identify') },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          '/api/v1/users/identify?x=1',
          '/api/v1/users/identify#frag',
          '/api/v1/users/identify/',
          '/API/v1/users/identify',
          '/api/v1/users/identify%20',
          '/api/v1/users/%69dentify',
        ),
      },
    )
    await assertApiCases(
      { state: seeded, credentials, wide: true, methods: method, targets: () => target },
      check,
      { scale: 3 },
    )
  }, 120_000)

  it('answers any method and path under /api (delete, routing, percent-encoding) as the contract says', async () => {
    const method = fc.oneof(
      { weight: 8, arbitrary: httpMethod() },
      { weight: 1, arbitrary: fc.constantFrom('delete', 'Delete', 'CONNECT', 'PRI', 'X-Y', '') },
      { weight: 1, arbitrary: anyString },
    )
    await assertApiCases(
      {
        state: seeded,
        credentials,
        wide: true,
        methods: method,
        targets: apiTarget,
        bodyFreq: 3,
      },
      check,
      { scale: 3 },
    )
  }, 120_000)
})
