import { setupServer } from 'msw/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMockApi, type MockApi, type MockState } from '../../src/index.ts'
import { expectAnswer, expectedAnswer } from '../support/api-oracle.ts'
import { announceSeed, apiTarget, httpMethod } from '../support/arbitraries.ts'
import {
  type ApiCase,
  assertApiCases,
  identifyCalls,
  type MockConfiguration,
  mockConfigurations,
  worldOf,
} from '../support/property-world.ts'

/**
 * The property-based cases through the in-process way in: the MSW handlers under `setupServer`,
 * called with `fetch` as a consumer's code calls them. Only what `fetch` can send is sent, and
 * the contract is checked against the request as it arrives (fetch resolves dot segments and
 * drops the fragment).
 */
announceSeed('properties-msw')

const server = setupServer()
const apis = {} as Record<MockConfiguration, { api: MockApi; base: string }>
let seeded: MockState
let credentials: MockApi['credentials']

beforeAll(async () => {
  server.listen({ onUnhandledFrame: 'error' })
  for (const name of Object.keys(mockConfigurations) as MockConfiguration[]) {
    const base = `http://${name}.properties.test`
    const api = createMockApi({ ...mockConfigurations[name], baseUrl: base })
    server.use(...api.handlers)
    await api.ready
    apis[name] = { api, base }
  }
  seeded = await apis.default.api.state()
  credentials = apis.default.api.credentials
})

afterAll(() => server.close())

/** `fetch` sends no body with GET or HEAD. */
const withoutBodyFor = (c: ApiCase): ApiCase =>
  c.method === 'GET' || c.method === 'HEAD' ? { ...c, body: null } : c

async function check(generated: ApiCase) {
  const c = withoutBodyFor(generated)
  const { api, base } = apis[c.configuration]
  await api.reset()
  if (c.fault) api.failNext(c.fault.operation, { status: c.fault.status })
  const headers = new Headers(c.otherHeaders)
  if (c.authorization !== null) headers.set('authorization', c.authorization)
  if (c.contentType !== null) headers.set('content-type', c.contentType)
  const response = await fetch(base + c.target, {
    method: c.method,
    headers,
    ...(c.body && { body: new Uint8Array(c.body) }),
  })
  const text = await response.text()
  const url = new URL(base + c.target)
  const world = worldOf(c.configuration, api.credentials, seeded, c.fault)
  const expected = expectedAnswer(world, {
    ...c,
    target: url.pathname + url.search,
    authorization: headers.get('authorization'),
    contentType: headers.get('content-type'),
  })
  const observed = {
    status: response.status,
    header: (name: string) => response.headers.get(name),
    text: c.method === 'HEAD' ? undefined : text,
  }
  expectAnswer(world, expected, observed, await api.state())
  if (c.method === 'HEAD') expect(text).toBe('')
}

/** The handlers answer everything under `/api/`; a target that resolves elsewhere is not theirs. */
const staysUnderApi = (c: ApiCase) => new URL(`http://x${c.target}`).pathname.startsWith('/api/')

describe('properties through the MSW handlers', () => {
  it('answers any identify call as the contract says, and changes nothing on an error', async () => {
    await assertApiCases(
      { state: seeded, credentials, ...identifyCalls(httpMethod(['TRACE'])) },
      check,
    )
  }, 120_000)

  it('answers any method and path under /api as the contract says', async () => {
    await assertApiCases(
      {
        state: seeded,
        credentials,
        wide: false,
        methods: httpMethod(['TRACE']),
        targets: apiTarget,
        bodyFreq: 3,
      },
      check,
      { keep: staysUnderApi },
    )
  }, 120_000)
})
