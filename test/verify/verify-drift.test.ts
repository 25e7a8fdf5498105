import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from '../../src/server/server.ts'
import { type VerifyOptions, verifyDeployment } from '../../src/verify/node/index.ts'
import {
  type DriftingProxy,
  errorAnswer,
  forbidInsteadOfUnauthorized,
  type ProxiedExchange,
  startDriftingProxy,
} from '../support/drifting-proxy.ts'
import { rowsWith, throwawayUsersIn } from '../support/verify-suite.ts'

/**
 * `verify` against a deployment that drifted from the mock: a proxy between them changes one
 * thing at a time, and the report must name the row that shows it, and only the rows that do.
 */
let server: RunningServer
let proxy: DriftingProxy

beforeAll(async () => {
  server = await startServer({ port: 0 })
  proxy = await startDriftingProxy(server.url)
})
afterAll(async () => {
  await proxy.close()
  await server.close()
})
beforeEach(async () => {
  await server.core.reset()
  proxy.drift = (exchange) => exchange
  proxy.delayMs = () => 0
  proxy.intercept = () => undefined
})

async function verifyThroughProxy(options: Partial<VerifyOptions> = {}) {
  const key = server.core.credentials.find((c) => c.orgId === 'org-1')?.apiKeys[0] ?? ''
  const report = await verifyDeployment({
    baseUrl: proxy.url,
    apiKey: key,
    orgId: 'org-1',
    groups: ['grp-1', 'grp-2'],
    ...options,
  })
  expect(throwawayUsersIn(await server.core.state())).toEqual([])
  return report
}

const contractRowsThatDiffer = (report: Awaited<ReturnType<typeof verifyDeployment>>) =>
  report.checks.filter((c) => c.kind === 'contract' && c.verdict === 'differs').map((c) => c.name)

const isIdentify200 = (e: ProxiedExchange) =>
  e.method === 'POST' && e.path === '/api/v1/users/identify' && e.status === 200

function changeJson(e: ProxiedExchange, change: (body: Record<string, unknown>) => void) {
  const body = JSON.parse(e.body)
  change(body)
  return { ...e, body: JSON.stringify(body) }
}

const errorRows = [
  'identify: 400 for a value outside an enumeration',
  'identify: 400 for a field the request does not have',
  'identify: 403 for another organisation',
  'delete: 403 for another organisation',
  'delete: 404 for an id that cannot exist',
  'delete: a second delete answers 404',
]

const contractChanges: Array<{
  change: string
  drift: (e: ProxiedExchange) => ProxiedExchange
  rows: string[]
}> = [
  {
    change: 'an error message',
    drift: (e) => ({ ...e, body: e.body.replace('"User not found"', '"User does not exist"') }),
    rows: ['delete: 404 for an id that cannot exist', 'delete: a second delete answers 404'],
  },
  {
    change: 'an extra response field',
    drift: (e) =>
      isIdentify200(e) ? changeJson(e, (b) => Object.assign(b, { expiresIn: 300 })) : e,
    rows: ['identify answer objects closed'],
  },
  {
    change: 'a value outside an enumeration',
    drift: (e) =>
      isIdentify200(e)
        ? changeJson(e, (b) => Object.assign(b.data as object, { registrationStatus: 'pending' }))
        : e,
    rows: ['registrationStatus in its enumeration'],
  },
  {
    change: 'a 201 instead of 200',
    drift: (e) => (isIdentify200(e) ? { ...e, status: 201 } : e),
    rows: ['identify answers 200'],
  },
  {
    change: 'a missing token',
    drift: (e) => (isIdentify200(e) ? changeJson(e, (b) => delete b.token) : e),
    rows: ['identify token: a non-empty string, new on every call'],
  },
  {
    change: 'an error body of another shape',
    drift: (e) =>
      e.status >= 400
        ? changeJson(e, (b) => {
            const { code, message } = b
            for (const k of Object.keys(b)) delete b[k]
            b.error = { status: code, message }
          })
        : e,
    rows: [...errorRows, 'error bodies exactly {code, message}, code equal to the status'],
  },
]

describe('verify against a deployment that drifted', () => {
  for (const { change, drift, rows } of contractChanges) {
    it(`names the contract rows that show ${change}, and fails`, async () => {
      proxy.drift = drift
      const report = await verifyThroughProxy()
      expect(contractRowsThatDiffer(report)).toEqual(rows)
      expect(report.ok).toBe(false)
      expect(report.throwawayUser.deleted).toBe(true)
    })
  }

  it('reports a 401 turned into the documented 403 as a decision, failing only with strict', async () => {
    proxy.drift = forbidInsteadOfUnauthorized
    const report = await verifyThroughProxy()
    expect(rowsWith(report, 'differs')).toEqual([
      'identify without Authorization: 401',
      'identify with an unknown key: 401',
    ])
    expect(report.ok).toBe(true)
    const strict = await verifyThroughProxy({ strict: true })
    expect(strict.ok).toBe(false)
    expect(contractRowsThatDiffer(strict)).toEqual([])
  })

  it('makes a row whose answer comes too late differ, and goes on', async () => {
    // The fourth identify is the one with the scheme written in lower case.
    let late = 0
    proxy.delayMs = (r) =>
      r.method === 'POST' && r.path === '/api/v1/users/identify' && ++late === 4 ? 1_000 : 0
    const report = await verifyThroughProxy({ timeoutMs: 300 })
    const row = report.checks.find((c) => c.name === 'the Bearer scheme in any case')
    expect(row).toMatchObject({
      verdict: 'differs',
      actual: 'lowercaseScheme: no answer within 300 ms',
    })
    expect(rowsWith(report, 'differs')).toEqual(['the Bearer scheme in any case'])
    expect(rowsWith(report, 'same')).toContain('delete: a second delete answers 404')
  })

  it('deletes the user itself when the run’s deletes do not reach the target', async () => {
    const userPath = /^\/api\/v1\/users\/org-1\/verify-[0-9a-f]{32}$/
    let deletes = 0
    proxy.intercept = (r) =>
      r.method === 'DELETE' && userPath.test(r.path) && ++deletes <= 2
        ? errorAnswer(r, 500, 'Internal server error')
        : undefined
    const report = await verifyThroughProxy()
    expect(deletes).toBe(3)
    expect(report.throwawayUser.deleted).toBe(true)
    expect(contractRowsThatDiffer(report)).toEqual([
      'delete: a second delete answers 404',
      'delete answers {id, deleted: true}',
    ])
  })

  it('says so when the user cannot be deleted', async () => {
    proxy.intercept = (r) =>
      r.method === 'DELETE' &&
      r.path.startsWith('/api/v1/users/org-1/verify-') &&
      !r.path.includes('absent')
        ? errorAnswer(r, 500, 'Internal server error')
        : undefined
    const key = server.core.credentials[0]?.apiKeys[0] ?? ''
    const report = await verifyDeployment({ baseUrl: proxy.url, apiKey: key, orgId: 'org-1' })
    expect(report.throwawayUser).toEqual({
      orgId: 'org-1',
      id: expect.stringMatching(/^verify-/),
      deleted: false,
      leftBehind: [{ orgId: 'org-1', id: report.throwawayUser.id }],
      unanswered: [],
    })
    expect(throwawayUsersIn(await server.core.state()).map((u) => u.id)).toEqual([
      report.throwawayUser.id,
    ])
  })
})
