import { setupServer } from 'msw/node'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { createMockApi } from '../../src/root/index.ts'
import { type RunningServer, startServer } from '../../src/server/server.ts'
import { sendRaw } from '../support/http-client.ts'

/**
 * The standalone server (`node:http` straight to `dispatch`) and the MSW handlers (`fetch`,
 * intercepted) must be one API: the same requests, in the same order, on the same seed, clock and
 * tokens, get the same statuses and the same bytes.
 */

const key = 'same-key'
const origin = 'http://same-answers.test'

/** Options both mocks share: a fixed clock that moves a second a call, and numbered tokens. */
function sharedOptions() {
  let tick = 0
  let token = 0
  return {
    seed: 11,
    organisations: [
      { orgId: 'acme', apiKeys: [key] },
      { orgId: 'other', apiKeys: ['other-key'] },
    ],
    now: () => new Date(Date.UTC(2025, 7, 14, 15, 0, tick++)),
    generateToken: () => `token-${String(token++).padStart(4, '0')}`,
  }
}

interface Step {
  method: string
  path: string
  key?: string
  contentType?: string
  body?: string
}

const identify = (body: unknown, apiKey = key): Step => ({
  method: 'POST',
  path: '/api/v1/users/identify',
  key: apiKey,
  contentType: 'application/json',
  body: JSON.stringify(body),
})

/** Every kind of answer: creation, update, groups, each error row, delete, the web view. */
function steps(seeded: { id: string; orgId: string }): Step[] {
  return [
    identify({ id: 'new-1', orgId: 'acme', data: { firstName: 'Ada', userGroups: ['grp-1'] } }),
    identify({ id: 'new-1', orgId: 'acme', data: { lastName: 'Lovelace', sex: 'female' } }),
    identify({ id: 'new-1', orgId: 'acme', data: { userGroups: ['brand-new', 'grp-2'] } }),
    identify({ id: seeded.id, orgId: seeded.orgId, data: { country: 'Iceland' } }),
    identify({ id: seeded.id, orgId: seeded.orgId }),
    identify({ id: 'x', orgId: 'other' }),
    identify({ id: 'x', orgId: 'acme', data: { sex: 'unknown' } }),
    identify({ id: 'x', orgId: 'acme', extra: true }),
    { ...identify({ id: 'x', orgId: 'acme' }), contentType: 'text/plain' },
    { ...identify({ id: 'x', orgId: 'acme' }), body: '{"id":' },
    identify({ id: 'x', orgId: 'acme' }, 'wrong-key'),
    { ...identify({ id: 'x', orgId: 'acme' }), key: undefined },
    { method: 'GET', path: `/webview?orgId=acme&token=token-0000&webview=true` },
    { method: 'GET', path: `/webview?orgId=acme&token=token-0000` },
    { method: 'GET', path: `/webview?orgId=other&token=token-0001` },
    { method: 'GET', path: '/api/v1/users/identify', key },
    { method: 'PUT', path: `/api/v1/users/acme/new-1`, key },
    { method: 'GET', path: '/api/v1/nowhere', key },
    { method: 'DELETE', path: '/api/v1/users/other/new-1', key },
    { method: 'DELETE', path: '/api/v1/users/acme/new-1', key },
    { method: 'DELETE', path: '/api/v1/users/acme/new-1', key },
    {
      method: 'DELETE',
      path: `/api/v1/users/${seeded.orgId}/${encodeURIComponent(seeded.id)}`,
      key,
    },
    { method: 'DELETE', path: '/api/v1/users/acme/%E0%A4%A', key },
    identify({ id: 'new-1', orgId: 'acme' }),
  ]
}

function headersOf(step: Step): Record<string, string> {
  return {
    ...(step.key && { authorization: `Bearer ${step.key}` }),
    ...(step.contentType && { 'content-type': step.contentType }),
  }
}

/** One step over a real connection, read as bytes. */
async function overHttp(url: string, step: Step): Promise<{ status: number; body: string }> {
  const { status, text } = await sendRaw(url, {
    method: step.method,
    target: step.path,
    headers: headersOf(step),
    body: step.body === undefined ? null : Buffer.from(step.body),
  })
  return { status, body: text }
}

async function throughMsw(step: Step): Promise<{ status: number; body: string }> {
  const response = await fetch(`${origin}${step.path}`, {
    method: step.method,
    headers: headersOf(step),
    body: step.body,
  })
  return { status: response.status, body: await response.text() }
}

/**
 * A new user's `userId` is random (the cryptographic source, by design): each one is replaced by
 * its order of appearance, the same in both runs, so that every other byte can be compared. So is
 * a web-view page's nonce, which is blanked.
 */
function withNewUserIdsNumbered(bodies: string[], seededUserIds: Set<string>): string[] {
  const numbers = new Map<string, string>()
  const uuid = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g
  return bodies.map((body) =>
    body
      .replace(uuid, (id) => {
        if (seededUserIds.has(id)) return id
        if (!numbers.has(id)) numbers.set(id, `new-user-id-${numbers.size + 1}`)
        return numbers.get(id) as string
      })
      // A web-view page's CSP nonce is new for every answer, by design.
      .replace(/ nonce="[A-Za-z0-9+/=]{24}"/g, ' nonce="…"'),
  )
}

let server: RunningServer
let sequence: Step[]
let seededUserIds: Set<string>

beforeAll(async () => {
  server = await startServer({ port: 0, ...sharedOptions() })
  const state = await server.core.state()
  const seeded = state.users.find((u) => u.orgId === 'acme' && u.userGroups.length > 0)
  if (!seeded) throw new Error('no seeded user with groups in acme')
  sequence = steps(seeded)
  seededUserIds = new Set(state.users.map((u) => u.userId))
})
afterAll(() => server.close())

it('answers the same statuses and bytes over HTTP and through the MSW handlers', async () => {
  const http = []
  for (const step of sequence) http.push(await overHttp(server.url, step))

  const api = createMockApi({ ...sharedOptions(), baseUrl: origin })
  const msw = setupServer(...api.handlers)
  msw.listen({ onUnhandledFrame: 'error' })
  const handlers = []
  try {
    for (const step of sequence) handlers.push(await throughMsw(step))
  } finally {
    msw.close()
  }

  expect(handlers.map((a) => a.status)).toEqual(http.map((a) => a.status))
  expect(new Set(http.map((a) => a.status))).toEqual(new Set([200, 400, 401, 403, 404, 405]))
  expect(
    withNewUserIdsNumbered(
      handlers.map((a) => a.body),
      seededUserIds,
    ),
  ).toEqual(
    withNewUserIdsNumbered(
      http.map((a) => a.body),
      seededUserIds,
    ),
  )
})
