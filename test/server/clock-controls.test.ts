import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectMockApi } from '../../src/client/connect-mock-api.ts'
import { createMockApi } from '../../src/root/index.ts'
import { type RunningServer, startServer } from '../../src/server/server.ts'
import { controlCall } from '../support/control-call.ts'
import { type LocalReceiver, startReceiver } from '../support/webhook-delivery.ts'

/**
 * The clock controls over HTTP: their wire, their refusals, whose time each clock is, what a
 * reset does to it, where a clock can start, and the front door they stand behind.
 */

const json = { 'content-type': 'application/json' }
const day = 24 * 60 * 60 * 1000

/** A call of the control endpoints of `server`: its status and JSON body. */
const control = (
  server: RunningServer,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) => controlCall(server.url, method, path, body, headers)

async function createOrganisation(server: RunningServer, input: object = {}) {
  const created = await control(server, 'POST', '/organisations', input)
  expect(created.status).toBe(201)
  return created.body as { orgId: string; apiKey: string }
}

async function identify(server: RunningServer, org: { orgId: string; apiKey: string }) {
  const response = await fetch(`${server.url}/api/v1/users/identify`, {
    method: 'POST',
    headers: { ...json, authorization: `Bearer ${org.apiKey}` },
    body: JSON.stringify({ id: 'ada', orgId: org.orgId }),
  })
  expect(response.status).toBe(200)
  return ((await response.json()) as { data: { lastActive: string } }).data.lastActive
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('the clock controls', () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer({ port: 0 })
  })
  afterAll(() => server.close())

  it('read, set and advance the mock’s clock and an organisation’s, answering { now, mode }', async () => {
    const real = await control(server, 'GET', '/clock')
    expect(real).toEqual({ status: 200, body: { now: expect.any(String), mode: 'real' } })
    expect(Math.abs(Date.parse(real.body.now) - Date.now())).toBeLessThan(60_000)

    const { orgId } = await createOrganisation(server)
    const clock = `/organisations/${orgId}/clock`
    expect(await control(server, 'PUT', clock, { frozenAt: '2031-03-04T10:06:07+05:00' })).toEqual({
      status: 200,
      body: { now: '2031-03-04T05:06:07.000Z', mode: 'frozen' },
    })
    expect((await control(server, 'GET', clock)).body.now).toBe('2031-03-04T05:06:07.000Z')
    expect((await control(server, 'POST', `${clock}/advance`, { ms: 1500 })).body).toEqual({
      now: '2031-03-04T05:06:08.500Z',
      mode: 'frozen',
    })

    const running = await control(server, 'PUT', clock, { startAt: '2040-01-01T00:00:00Z' })
    expect(running.body.mode).toBe('running')
    await sleep(60)
    const later = Date.parse((await control(server, 'GET', clock)).body.now)
    expect(later).toBeGreaterThanOrEqual(Date.parse('2040-01-01T00:00:00.050Z'))
    expect(later).toBeLessThan(Date.parse('2040-01-01T00:01:00Z'))
    const moved = await control(server, 'POST', `${clock}/advance`, { ms: day })
    expect(moved.body.mode).toBe('running')
    expect(Date.parse(moved.body.now) - later).toBeGreaterThanOrEqual(day)

    // Back to real: none of its own, so the mock's, which is real.
    expect((await control(server, 'PUT', clock, { real: true })).body.mode).toBe('real')
    expect((await control(server, 'GET', '/clock')).body.mode).toBe('real')
    // Advancing the real clock runs on from the time it gave.
    const ahead = await control(server, 'POST', `${clock}/advance`, { ms: day })
    expect(ahead.body.mode).toBe('running')
    expect(Date.parse(ahead.body.now) - Date.now()).toBeGreaterThan(day - 60_000)
  })

  it('refuses a bad body with 400 naming the problem, and an unknown organisation with 404', async () => {
    const { orgId } = await createOrganisation(server, {
      clock: { frozenAt: '2031-01-01T00:00:00Z' },
    })
    const clock = `/organisations/${orgId}/clock`
    const settings: [unknown, RegExp][] = [
      [{}, /^Invalid request parameters: body: give exactly one of frozenAt, startAt, real$/],
      [{ frozenAt: 'yesterday' }, /frozenAt: Invalid ISO datetime/],
      [{ frozenAt: '2031-01-01T00:00:00' }, /frozenAt: Invalid ISO datetime/],
      [{ frozenAt: '1999-12-31T23:59:59.999Z' }, /frozenAt: an instant from 2000-01-01T00:00:00Z/],
      [{ startAt: '2100-01-01T00:00:00Z' }, /startAt: an instant from 2000-01-01T00:00:00Z/],
      [{ frozenAt: '2031-01-01T00:00:00Z', real: true }, /not frozenAt and real/],
      [{ real: false }, /real: Invalid input: expected true/],
      [{ frozenAt: '2031-01-01T00:00:00Z', at: 1 }, /Unrecognized key: "at"/],
    ]
    for (const [body, message] of settings) {
      for (const path of [clock, '/clock']) {
        const refused = await control(server, 'PUT', path, body)
        expect({ body, refused }).toEqual({
          body,
          refused: { status: 400, body: { code: 400, message: expect.stringMatching(message) } },
        })
      }
    }
    const advances: [unknown, RegExp][] = [
      [{}, /ms: expected a whole number of milliseconds/],
      [{ ms: -1 }, /ms: expected a whole number of milliseconds, 0 or more/],
      [{ ms: 1.5 }, /ms: expected a whole number of milliseconds/],
      [{ ms: '5' }, /ms: expected a whole number of milliseconds/],
      [{ ms: 400 * day + 1 }, /ms: at most 400 days/],
      [{ ms: 5, orgId: 'other' }, /The body must be a JSON object: {"ms"}/],
    ]
    for (const [body, message] of advances) {
      const refused = await control(server, 'POST', `${clock}/advance`, body)
      expect(refused).toEqual({
        status: 400,
        body: { code: 400, message: expect.stringMatching(message) },
      })
    }
    // Nothing refused moved the clock.
    expect((await control(server, 'GET', clock)).body.now).toBe('2031-01-01T00:00:00.000Z')
    // Past the upper bound, however it gets there.
    await control(server, 'PUT', clock, { frozenAt: '2099-12-31T00:00:00Z' })
    const past = await control(server, 'POST', `${clock}/advance`, { ms: day })
    expect(past.status).toBe(400)
    expect(past.body.message).toMatch(/ms: the clock would read 2100-01-01T00:00:00.000Z, past/)

    for (const [method, path, body] of [
      ['GET', '/organisations/nowhere/clock', undefined],
      ['PUT', '/organisations/nowhere/clock', { real: true }],
      ['POST', '/organisations/nowhere/clock/advance', { ms: 1 }],
    ] as const) {
      expect(await control(server, method, path, body)).toEqual({
        status: 404,
        body: { code: 404, message: 'Not found' },
      })
    }
  })

  it('gives each tenant its own time; one without a clock of its own follows the mock’s', async () => {
    const a = await createOrganisation(server, { clock: { frozenAt: '2031-01-01T00:00:00Z' } })
    const b = await createOrganisation(server, { clock: { frozenAt: '2032-02-02T00:00:00Z' } })
    const follower = await createOrganisation(server)
    await control(server, 'PUT', '/clock', { frozenAt: '2033-03-03T00:00:00Z' })
    try {
      const client = connectMockApi(server.url)
      // The tenant handle over HTTP moves its own organisation's clock only.
      const tenantA = await client.organisations.create()
      await control(server, 'POST', `/organisations/${a.orgId}/clock/advance`, { ms: 1000 })
      expect(await identify(server, a)).toBe('2031-01-01T00:00:01+00:00')
      expect(await identify(server, b)).toBe('2032-02-02T00:00:00+00:00')
      expect(await identify(server, follower)).toBe('2033-03-03T00:00:00+00:00')
      expect((await control(server, 'GET', `/organisations/${follower.orgId}/clock`)).body).toEqual(
        { now: '2033-03-03T00:00:00.000Z', mode: 'frozen' },
      )
      for (const [org, orgTime] of [
        [a, '2031-01-01T00:00:01+00:00'],
        [b, '2032-02-02T00:00:00+00:00'],
        [follower, '2033-03-03T00:00:00+00:00'],
      ] as const) {
        const entries = (await control(server, 'GET', `/requests?orgId=${org.orgId}`)).body
        expect(entries.map((e: { orgTime: string }) => e.orgTime)).toEqual([orgTime])
      }

      // A tenant that follows the mock's gets a clock of its own by an advance: the mock's stays.
      expect(await tenantA.clock()).toEqual({ now: '2033-03-03T00:00:00.000Z', mode: 'frozen' })
      expect(await tenantA.advanceClock(day)).toEqual({
        now: '2033-03-04T00:00:00.000Z',
        mode: 'frozen',
      })
      expect((await control(server, 'GET', '/clock')).body.now).toBe('2033-03-03T00:00:00.000Z')
      await tenantA.setClock({ frozenAt: '2034-01-01T00:00:00Z' })
      expect((await control(server, 'GET', `/organisations/${b.orgId}/clock`)).body.now).toBe(
        '2032-02-02T00:00:00.000Z',
      )

      // The mock's moves every follower, and no tenant with a clock of its own.
      await control(server, 'POST', '/clock/advance', { ms: 2000 })
      expect(await identify(server, follower)).toBe('2033-03-03T00:00:02+00:00')
      expect(await identify(server, b)).toBe('2032-02-02T00:00:00+00:00')
      expect((await tenantA.clock()).now).toBe('2034-01-01T00:00:00.000Z')
      // Back to real: it follows the mock's again.
      expect(await tenantA.setClock({ real: true })).toEqual({
        now: '2033-03-03T00:00:02.000Z',
        mode: 'frozen',
      })
    } finally {
      await control(server, 'PUT', '/clock', { real: true })
    }
    expect((await control(server, 'GET', `/organisations/${follower.orgId}/clock`)).body.mode).toBe(
      'real',
    )
  })

  it('returns each clock to its start on a reset: an organisation’s to what it was created with', async () => {
    const created = await createOrganisation(server, {
      clock: { frozenAt: '2031-01-01T00:00:00Z' },
    })
    const plain = await createOrganisation(server)
    for (const org of [created, plain]) {
      await control(server, 'PUT', `/organisations/${org.orgId}/clock`, {
        frozenAt: '2050-05-05T00:00:00Z',
      })
    }
    expect((await control(server, 'POST', '/reset', { orgId: created.orgId })).status).toBe(204)
    expect((await control(server, 'POST', '/reset', { orgId: plain.orgId })).status).toBe(204)
    expect((await control(server, 'GET', `/organisations/${created.orgId}/clock`)).body).toEqual({
      now: '2031-01-01T00:00:00.000Z',
      mode: 'frozen',
    })
    expect((await control(server, 'GET', `/organisations/${plain.orgId}/clock`)).body.mode).toBe(
      'real',
    )
    await control(server, 'PUT', '/clock', { frozenAt: '2050-05-05T00:00:00Z' })
    expect((await control(server, 'POST', '/reset')).status).toBe(204)
    expect((await control(server, 'GET', '/clock')).body.mode).toBe('real')
    expect((await control(server, 'GET', '/state')).body.clocks).toEqual([])
  })

  it('takes an event’s timestamp from its organisation’s clock, the mock’s for an event of none', async () => {
    const org = await createOrganisation(server, {
      clock: { frozenAt: '2031-01-01T00:00:00Z' },
      users: [{ id: 'ada', registrationStatus: 'registered' }],
    })
    await control(server, 'PUT', '/clock', { frozenAt: '2033-03-03T00:00:00Z' })
    try {
      const named = await control(server, 'POST', '/events', {
        type: 'user.course.started',
        orgId: org.orgId,
        id: 'ada',
      })
      expect(named.body.timestamp).toBe('2031-01-01T00:00:00.000Z')
      const custom = await control(server, 'POST', '/events', { type: 'x.y', data: {} })
      expect(custom.body.timestamp).toBe('2033-03-03T00:00:00.000Z')
    } finally {
      await control(server, 'PUT', '/clock', { real: true })
    }
  })

  it('obeys the front door: cross-site 403, a body that is not JSON 400', async () => {
    const crossSite = await control(
      server,
      'PUT',
      '/clock',
      { frozenAt: '2031-01-01T00:00:00Z' },
      { origin: 'http://evil.test' },
    )
    expect(crossSite.status).toBe(403)
    const fetchSite = await control(
      server,
      'POST',
      '/clock/advance',
      { ms: 1 },
      {
        'sec-fetch-site': 'cross-site',
      },
    )
    expect(fetchSite.status).toBe(403)
    const plain = await control(server, 'PUT', '/clock', '{"frozenAt":"2031-01-01T00:00:00Z"}', {
      'content-type': 'text/plain',
    })
    expect(plain.status).toBe(400)
    expect((await control(server, 'GET', '/clock')).body.mode).toBe('real')
  })
})

describe('the clock controls with a control token', () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer({ port: 0, controlToken: 'clock-token' })
  })
  afterAll(() => server.close())

  it('answer 401 without it: an API key is no control credential', async () => {
    const key = server.core.credentials[0]?.apiKeys[0] ?? ''
    for (const authorization of [undefined, `Bearer ${key}`]) {
      const headers: Record<string, string> = authorization ? { authorization } : {}
      const refused = await control(
        server,
        'PUT',
        '/organisations/org-1/clock',
        { real: true },
        headers,
      )
      expect(refused.status).toBe(401)
    }
    const allowed = await control(
      server,
      'PUT',
      '/organisations/org-1/clock',
      { frozenAt: '2031-01-01T00:00:00Z' },
      { authorization: 'Bearer clock-token' },
    )
    expect(allowed.body).toEqual({ now: '2031-01-01T00:00:00.000Z', mode: 'frozen' })
  })
})

describe('a clock a test starts with', () => {
  it('comes from a data file’s organisation: frozen, or running from its instant, again on a reset', async () => {
    const api = createMockApi({
      seededOrganisations: 0,
      data: {
        organisations: [
          { orgId: 'still', apiKeys: ['still-key'], clock: { frozenAt: '2031-01-01T00:00:00Z' } },
          { orgId: 'moving', apiKeys: ['moving-key'], clock: { startAt: '2040-01-01T00:00:00Z' } },
        ],
      },
    })
    expect(await api.organisations.clock('still')).toEqual({
      now: '2031-01-01T00:00:00.000Z',
      mode: 'frozen',
    })
    const moving = await api.organisations.clock('moving')
    expect(moving.mode).toBe('running')
    expect(Date.parse(moving.now) - Date.parse('2040-01-01T00:00:00Z')).toBeLessThan(60_000)
    await api.organisations.advanceClock('moving', day)
    await api.reset({ orgId: 'moving' })
    const again = Date.parse((await api.organisations.clock('moving')).now)
    expect(again - Date.parse('2040-01-01T00:00:00Z')).toBeLessThan(60_000)
  })

  it('is refused in a data file or a created organisation with the problem’s path', async () => {
    expect(() =>
      createMockApi({
        data: {
          organisations: [
            { orgId: 'acme', apiKeys: [], clock: { frozenAt: '1990-01-01T00:00:00Z' } },
          ],
        },
      }),
    ).toThrow(/organisations\[0\]\.clock\.frozenAt: an instant from 2000-01-01T00:00:00Z/)
    const api = createMockApi()
    await expect(
      api.organisations.create({
        clock: { frozenAt: '2031-01-01T00:00:00Z', startAt: '2031-01-01T00:00:00Z' },
      }),
    ).rejects.toThrow(/clock: give exactly one of frozenAt, startAt, not frozenAt and startAt/)
  })
})

describe('a webhook retry waiting on a clock that is set anew', () => {
  let server: RunningServer
  let receiver: LocalReceiver
  beforeAll(async () => {
    receiver = await startReceiver()
    server = await startServer({ port: 0, webhookRetrySchedule: [10_000] })
  })
  afterAll(async () => {
    await server.close()
    await receiver.close()
  })

  it('keeps what was left of its delay, whichever way the clock jumps', async () => {
    const org = await createOrganisation(server, {
      clock: { frozenAt: '2031-01-01T00:00:00Z' },
      users: [{ id: 'ada', registrationStatus: 'registered' }],
    })
    const clock = `/organisations/${org.orgId}/clock`
    await control(server, 'POST', '/webhooks', { url: receiver.url })
    receiver.answers = [500]
    await control(server, 'POST', '/events', {
      type: 'user.course.started',
      orgId: org.orgId,
      id: 'ada',
    })
    await expect.poll(() => receiver.received.length).toBe(1)
    await control(server, 'POST', `${clock}/advance`, { ms: 4000 })
    // A jump ahead brings nothing due; one back strands nothing: 6 s of its delay are left.
    await control(server, 'PUT', clock, { frozenAt: '2031-06-01T00:00:00Z' })
    await control(server, 'PUT', clock, { frozenAt: '2001-01-01T00:00:00Z' })
    await control(server, 'POST', `${clock}/advance`, { ms: 5999 })
    expect(receiver.received).toHaveLength(1)
    await control(server, 'POST', `${clock}/advance`, { ms: 1 })
    expect(receiver.received).toHaveLength(2)
  })
})
