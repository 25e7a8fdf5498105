import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { kindFaultSchema } from '../../src/core/faults.ts'
import { type RunningServer, startServer } from '../../src/server/server.ts'
import { isJsonMediaType, pathOf } from '../support/api-oracle.ts'
import {
  anyJson,
  apiTarget,
  authorizationValue,
  headerText,
  httpMethod,
  prototypeNames,
} from '../support/arbitraries.ts'
import { keepAliveAgent, sendRaw } from '../support/http-client.ts'
import { mockHealth } from '../support/mock-health.ts'
import { describeProperties, propertyParameters } from '../support/properties.ts'
import { fixedNow, identifyCalls } from '../support/property-world.ts'
import { httpWayIn } from '../support/way-in.ts'

/**
 * The property-based cases through the standalone server over real HTTP: targets sent byte for
 * byte as generated (dot segments, malformed percent-encoding, fragments), any method Node's
 * parser knows, arbitrary headers; and the control endpoints, open, behind a token, or disabled.
 * The server runs in this process, so a crash of its listener would fail the run.
 */
/**
 * Targets outside `/api` and `/__mock` (and the web view's page): all 404 `Not found`, but for the
 * absolute-form target naming another host, which the front door refuses 403 `Forbidden`.
 */
const elsewhere = fc.constantFrom(
  '/',
  '//',
  '/api',
  '/apiv1/users/identify',
  '/v1/users/identify',
  '/__mockery',
  '/__proto__',
  '/constructor',
  '/%2e%2e/api/v1/users/identify',
  '/webview/x',
  '*',
  'http://elsewhere.test/api/v1/users/identify',
  '/API/v1/users/identify',
)

const agent = keepAliveAgent()
afterAll(() => agent.destroy())

const properties = describeProperties('the HTTP server', httpWayIn, {
  bodilessHead: true,
  /** An absolute-form target naming another host is refused at the front door, like its Host. */
  outsideTheContract: (c, answer, way) => {
    if (!c.target.startsWith('http://elsewhere.test/')) return false
    expect({ status: answer.status, body: answer.text && JSON.parse(answer.text) }).toEqual({
      status: 403,
      body: c.method === 'HEAD' ? '' : { code: 403, message: 'Forbidden' },
    })
    expect(way.core.requests()).toEqual([])
    return true
  },
  expectAlso: (c, answer, _world, way) => {
    expect(
      way.core.requests().map(({ method, path, status }) => ({ method, path, status })),
    ).toEqual([{ method: c.method, path: pathOf(c.target), status: answer.status }])
  },
  properties: [
    {
      title: 'answers any identify call as the contract says, and changes nothing on an error',
      cases: identifyCalls(httpMethod()),
    },
    {
      title: 'answers any method and target as the contract says',
      cases: {
        wide: false,
        methods: httpMethod(),
        targets: (pools) =>
          fc.oneof({ weight: 8, arbitrary: apiTarget(pools) }, { weight: 1, arbitrary: elsewhere }),
        bodyFreq: 3,
      },
    },
  ],
})

describe('properties of the control endpoints over HTTP', () => {
  const controlToken = 'ctl-Secret_0'
  const variants = ['open', 'token', 'disabled'] as const
  type Variant = (typeof variants)[number]
  const control = {} as Record<Variant, RunningServer>

  beforeAll(async () => {
    const options = {
      open: {},
      token: { controlToken },
      disabled: { control: false },
    } as const
    for (const variant of variants) {
      control[variant] = await startServer({
        ...options[variant],
        now: () => fixedNow,
        port: 0,
      })
    }
  })

  afterAll(async () => {
    await Promise.all(Object.values(control).map((s) => s.close()))
  })

  const routes: Record<string, string[]> = {
    '/__mock/reset': ['POST'],
    '/__mock/faults': ['POST', 'GET', 'DELETE'],
    '/__mock/state': ['GET'],
    '/__mock/requests': ['GET'],
    '/__mock/health': ['GET'],
    '/__mock': ['GET'],
    '/__mock/': ['GET'],
    '/__mock/inspector.css': ['GET'],
    '/__mock/inspector.js': ['GET'],
    '/__mock/organisations': ['GET', 'POST'],
    '/__mock/users': ['GET'],
    '/__mock/user': ['GET', 'DELETE'],
  }

  /** The inspector page's files: they hold no data, so the control token does not guard them. */
  const openPaths = ['/__mock/', '/__mock/inspector.css', '/__mock/inspector.js']
  /** The health check: answered without the token and with the controls off (it reveals nothing). */
  const alwaysPaths = ['/__mock/health']

  /** A fault as docs/guides/behaviour.md, "Faults on demand", states it, checked without the mock's schema. */
  function isFault(value: unknown): boolean {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
    const fault = value as Record<string, unknown>
    if (!Object.keys(fault).every((k) => ['operation', 'status', 'count', 'delayMs'].includes(k))) {
      return false
    }
    const statuses: Record<string, number[]> = {
      identify: [400, 403, 500],
      delete: [403, 404, 500],
    }
    const int = (v: unknown) => typeof v === 'number' && Number.isSafeInteger(v)
    return (
      typeof fault.operation === 'string' &&
      Object.hasOwn(statuses, fault.operation) &&
      (statuses[fault.operation] ?? []).includes(fault.status as number) &&
      (!Object.hasOwn(fault, 'count') || (int(fault.count) && (fault.count as number) >= 1)) &&
      (!Object.hasOwn(fault, 'delayMs') ||
        (int(fault.delayMs) &&
          (fault.delayMs as number) >= 0 &&
          (fault.delayMs as number) <= 600_000))
    )
  }

  const faultBody = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record(
        {
          operation: fc.oneof(
            fc.constantFrom('identify', 'delete'),
            fc.constantFrom('Delete', '', 'update'),
            anyJson,
          ),
          status: fc.oneof(
            fc.constantFrom(400, 403, 404, 500),
            fc.constantFrom(401, 200, 500.5, -1, '500'),
            anyJson,
          ),
          count: fc.oneof(
            fc.constantFrom(1, 2, 3),
            fc.constantFrom(0, -1, 1.5, 2 ** 53, '2', null),
          ),
          delayMs: fc.oneof(fc.constant(0), fc.constantFrom(-1, 600_001, 0.5, '0', null, 700_000)),
        },
        { requiredKeys: [] },
      ),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(prototypeNames, anyJson)
        .map(([key, v]) =>
          JSON.parse(`{"operation":"delete","status":500,"${key}":${JSON.stringify(v)}}`),
        ),
    },
    { weight: 1, arbitrary: anyJson },
  )

  const controlCase = fc.record({
    variant: fc.constantFrom(...variants),
    method: fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom('GET', 'POST') },
      { weight: 1, arbitrary: httpMethod() },
    ),
    target: fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom(...Object.keys(routes)) },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          '/__mock',
          '/__mock/',
          '/__mock/health?x=1',
          '/__mock/state#x',
          '/__mock/__proto__',
          '/__mock/constructor',
          '/__mock/hasOwnProperty',
          '/__mock/reset/',
          '/__mock/%72eset',
          '/__mock/../api/v1/users/identify',
          '/__mock/RESET',
        ),
      },
    ),
    authorization: fc.oneof(authorizationValue([controlToken], false), headerText),
    contentType: fc.constantFrom(
      null,
      'application/json',
      'Application/JSON; charset=utf-8',
      'text/plain',
      'application/x-www-form-urlencoded',
    ),
    body: fc.oneof(
      {
        weight: 4,
        arbitrary: faultBody.map((v) => new TextEncoder().encode(JSON.stringify(v) ?? '')),
      },
      { weight: 1, arbitrary: fc.uint8Array({ maxLength: 32 }) },
      { weight: 1, arbitrary: fc.constant(null) },
    ),
  })

  it('answers any control request as documented, never a 5xx, and never echoes the token', async () => {
    await fc.assert(
      fc.asyncProperty(controlCase, async (c) => {
        const server = control[c.variant]
        await server.core.reset()
        const answer = await sendRaw(server.url, {
          method: c.method,
          target: c.target,
          headers: {
            ...(c.authorization !== null && { authorization: c.authorization }),
            ...(c.contentType !== null && { 'content-type': c.contentType }),
          },
          body: c.body,
          agent,
        })
        expect(answer.status).toBeLessThan(500)
        expect(answer.text).not.toContain(controlToken)
        const json = answer.header('content-type') === 'application/json'
        const body = json && answer.text ? JSON.parse(answer.text) : undefined
        const error = (status: number, message: string) => {
          expect({ status: answer.status, body }).toEqual({
            status,
            body: c.method === 'HEAD' ? undefined : { code: status, message },
          })
          expect(answer.header('content-type')).toBe('application/json')
        }
        const presented = c.authorization?.match(/^[ \t]*bearer[ \t]+([^ \t]+)[ \t]*$/i)?.[1]
        const path = pathOf(c.target)
        const methods = routes[path]
        if (c.variant === 'disabled' && !alwaysPaths.includes(path)) error(404, 'Not found')
        else if (
          c.variant === 'token' &&
          presented !== controlToken &&
          !(Object.hasOwn(routes, path) && [...openPaths, ...alwaysPaths].includes(path))
        ) {
          error(401, 'Unauthorized')
          expect(answer.header('www-authenticate')).toBe('Bearer')
        } else if (
          c.contentType === null ? (c.body?.byteLength ?? 0) > 0 : !isJsonMediaType(c.contentType)
        ) {
          // What an HTML form can send (a body without JSON's Content-Type) is refused.
          expect({ status: answer.status, body }).toEqual({
            status: 400,
            body:
              c.method === 'HEAD'
                ? undefined
                : { code: 400, message: expect.stringMatching(/Content-Type/) },
          })
        } else if (!methods || !Object.hasOwn(routes, path)) error(404, 'Not found')
        else if (!methods.includes(c.method) && !(methods.includes('GET') && c.method === 'HEAD')) {
          error(405, 'Method not allowed')
          const allowed = methods.includes('GET') ? [...methods, 'HEAD'] : methods
          expect(answer.header('allow')).toBe(allowed.join(', '))
        } else if (c.method === 'HEAD') {
          // HEAD answers what GET would, without a body: a redirect, a refused query, or 200.
          const status =
            path === '/__mock'
              ? 308
              : path === '/__mock/users' || path === '/__mock/user'
                ? 400
                : 200
          expect({ status: answer.status, text: answer.text }).toEqual({ status, text: '' })
        } else if (path === '/__mock/faults' && c.method === 'POST') {
          let parsed: unknown
          try {
            parsed = JSON.parse(new TextDecoder().decode(c.body ?? new Uint8Array()))
          } catch {
            parsed = undefined
          }
          if (isFault(parsed)) {
            expect(answer.status).toBe(204)
            // The fault is queued: the next identify with a key is answered by it.
            const fault = kindFaultSchema.parse(parsed)
            if (!fault.delayMs) {
              const key = server.core.credentials[0]?.apiKeys[0] ?? ''
              const op =
                fault.operation === 'identify'
                  ? { method: 'POST', target: '/api/v1/users/identify' }
                  : { method: 'DELETE', target: '/api/v1/users/org-1/x' }
              const next = await sendRaw(server.url, {
                ...op,
                headers: { authorization: `Bearer ${key}` },
                agent,
              })
              expect(next.status).toBe(fault.status)
            }
          } else {
            expect(answer.status).toBe(400)
            expect(body).toEqual({ code: 400, message: expect.stringMatching(/\S/) })
          }
        } else if (path === '/__mock/reset') {
          // No body or `{}` resets everything; `{"orgId"}` one organisation; anything else is refused.
          const text = new TextDecoder().decode(c.body ?? new Uint8Array())
          let scope: unknown
          try {
            scope = text === '' ? {} : JSON.parse(text)
          } catch {
            scope = undefined
          }
          const keys = typeof scope === 'object' && scope !== null ? Object.keys(scope) : undefined
          const orgId = (scope as { orgId?: unknown } | undefined)?.orgId
          if (keys?.length === 0 && !Array.isArray(scope)) expect(answer.status).toBe(204)
          else if (keys?.length === 1 && typeof orgId === 'string' && orgId !== '') {
            const known = server.core.credentials.some((c) => c.orgId === orgId)
            expect(answer.status).toBe(known ? 204 : 404)
          } else expect(answer.status).toBe(400)
        } else if (path === '/__mock/faults' && c.method === 'DELETE') {
          expect({ status: answer.status, text: answer.text }).toEqual({ status: 204, text: '' })
        } else if (path === '/__mock/health') expect(body).toEqual(mockHealth())
        else if (path === '/__mock/requests' || path === '/__mock/faults') expect(body).toEqual([])
        else if (path === '/__mock') {
          expect(answer.status).toBe(308)
          expect(answer.header('location')).toBe('/__mock/')
        } else if (openPaths.includes(path)) {
          expect(answer.status).toBe(200)
          expect(answer.header('content-security-policy')).toMatch(/^default-src 'none'/)
        } else if (path === '/__mock/organisations' && c.method === 'POST') {
          // A tenant created (checked in full in tenants.test.ts), or its input refused.
          if (answer.status === 201) {
            expect(body).toEqual({
              orgId: expect.stringMatching(/\S/),
              apiKey: expect.stringMatching(/^sk_test_[A-Za-z0-9]{24}$/),
            })
            await server.core.reset()
          } else error(400, expect.stringMatching(/\S/))
        } else if (path === '/__mock/organisations') {
          expect(body.total).toBe(server.core.credentials.length)
        } else if (path === '/__mock/users' || path === '/__mock/user') {
          // These targets carry no query: the organisation (and user) it needs are missing.
          error(400, expect.stringMatching(/^Invalid query: /))
        } else expect(body).toEqual(properties.seeded())
        expect(await server.core.state()).toEqual(properties.seeded())
      }),
      propertyParameters(),
    )
    const api = Object.values(properties.ways()).map((way) => way.running)
    for (const server of [...Object.values(control), ...api]) {
      expect(server.server.listening).toBe(true)
    }
  }, 120_000)
})
