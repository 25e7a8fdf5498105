import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from '../../src/server/server.ts'

/** The answer shapes' control endpoints, and where a server keeps and shows them. */

function clientOf(url: string) {
  const control = async (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) => {
    const response = await fetch(url + path, {
      method,
      headers: { ...(body !== undefined && { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    })
    const text = await response.text()
    return { status: response.status, body: text ? JSON.parse(text) : undefined }
  }
  const identify = async (key: string, orgId: string, id: string) => {
    const response = await fetch(`${url}/api/v1/users/identify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id, orgId }),
    })
    expect(response.status).toBe(200)
    return (await response.json()).data as Record<string, unknown>
  }
  const shapesOf = async (orgId: string) =>
    (await control('GET', '/__mock/organisations')).body.organisations.find(
      (o: { orgId: string }) => o.orgId === orgId,
    )?.shapes
  return { control, identify, shapesOf }
}

describe('the answer shapes over HTTP', () => {
  let server: RunningServer
  let client: ReturnType<typeof clientOf>
  let cases: { name: string; forms: Record<string, string> }[]
  beforeAll(async () => {
    server = await startServer({ port: 0 })
    client = clientOf(server.url)
    cases = (await client.control('GET', '/__mock/shapes')).body.cases
  })
  afterAll(() => server.close())

  it('lists the covering set at GET /__mock/shapes, as api.shapes.cases() does', async () => {
    expect(cases).toEqual(server.core.shapes.cases())
  })

  it("sets an organisation's mode with PUT …/shapes (204), shown in the organisation list", async () => {
    const { body } = await client.control('POST', '/__mock/organisations', {})
    expect(await client.shapesOf(body.orgId)).toBe('full')
    const put = await client.control('PUT', `/__mock/organisations/${body.orgId}/shapes`, {
      shapes: 'varied',
    })
    expect(put).toEqual({ status: 204, body: undefined })
    expect(await client.shapesOf(body.orgId)).toBe('varied')
    expect(await client.shapesOf('org-1')).toBe('full')
  })

  it('refuses an unknown mode or case, another body (400), and an unknown organisation (404)', async () => {
    const path = '/__mock/organisations/org-1/shapes'
    for (const body of [{ shapes: 'sideways' }, { shapes: 3 }, {}, { shapes: 'full', x: 1 }]) {
      const { status, body: error } = await client.control('PUT', path, body)
      expect(status).toBe(400)
      expect(error.code).toBe(400)
    }
    expect(await client.control('PUT', path, '[]')).toMatchObject({ status: 400 })
    expect(
      await client.control('PUT', '/__mock/organisations/nobody/shapes', { shapes: 'full' }),
    ).toEqual({ status: 404, body: { code: 404, message: 'Not found' } })
    expect(await client.shapesOf('org-1')).toBe('full')
  })

  it('names a case it does not have in its 400, on one line and cut short, at PUT …/shapes and POST /__mock/organisations', async () => {
    const long = `later\n${'x'.repeat(500)}`
    const refusals = [
      await client.control('PUT', '/__mock/organisations/org-1/shapes', { shapes: 'sideways' }),
      await client.control('POST', '/__mock/organisations', { shapes: 'sideways' }),
      await client.control('PUT', '/__mock/organisations/org-1/shapes', { shapes: long }),
    ]
    for (const { status, body } of refusals) {
      expect(status).toBe(400)
      expect(body.message).toMatch(
        /^Invalid request parameters: \w+: Invalid option: expected one of "full"\|"varied"\|"nulls"\|/,
      )
    }
    expect(refusals[0]?.body.message).toMatch(/, not "sideways"$/)
    expect(refusals[1]?.body.message).toMatch(
      /^Invalid request parameters: shapes: .*, not "sideways"$/,
    )
    expect(refusals[2]?.body.message).toMatch(/, not "later\\nx{53}…"$/)
    expect(await client.shapesOf('org-1')).toBe('full')
  })

  it('obeys the front door: cross-site 403, a body without JSON content type 400', async () => {
    const path = '/__mock/organisations/org-1/shapes'
    const crossSite = await client.control(
      'PUT',
      path,
      { shapes: 'varied' },
      {
        origin: 'http://evil.test',
      },
    )
    expect(crossSite.status).toBe(403)
    const plain = await client.control('PUT', path, JSON.stringify({ shapes: 'varied' }), {
      'content-type': 'text/plain',
    })
    expect(plain.status).toBe(400)
    expect(await client.shapesOf('org-1')).toBe('full')
  })

  it('shows a user in GET /__mock/user in the forms of its identify answers, and the journal the case', async () => {
    const [, absent] = cases
    const { body } = await client.control('POST', '/__mock/organisations', {
      shapes: absent?.name,
      users: [{ id: 'ada', registrationStatus: 'unregistered' }],
    })
    const user = await client.control('GET', `/__mock/user?orgId=${body.orgId}&id=ada`)
    expect(user.body.shape).toBe(absent?.name)
    expect(user.body.profile).toEqual({
      userId: expect.any(String),
      registrationStatus: 'unregistered',
      userGroups: [],
    })
    const answer = await client.identify(body.apiKey, body.orgId, 'ada')
    expect(Object.keys(answer).sort()).toEqual(
      ['userId', 'registrationStatus', 'lastActive', 'userGroups'].sort(),
    )
    const journal = await client.control('GET', `/__mock/requests?orgId=${body.orgId}`)
    expect(journal.body.at(-1)).toMatchObject({ status: 200, shape: absent?.name })
  })

  it("shows a never identified user's lastActive in each case's form: null or left out", async () => {
    const { body } = await client.control('POST', '/__mock/organisations', {
      users: [{ id: 'quiet', registrationStatus: 'registered' }],
    })
    const seen = new Set<string>()
    for (const shape of cases) {
      await client.control('PUT', `/__mock/organisations/${body.orgId}/shapes`, {
        shapes: shape.name,
      })
      const { profile } = (await client.control('GET', `/__mock/user?orgId=${body.orgId}&id=quiet`))
        .body
      const form = 'lastActive' in profile ? 'null' : 'absent'
      expect(form, shape.name).toBe(shape.forms.lastActive)
      if (form === 'null') expect(profile.lastActive).toBeNull()
      seen.add(form)
    }
    expect(seen).toEqual(new Set(['null', 'absent']))
  })

  it('takes a reset organisation back to the mode it started with', async () => {
    const { body } = await client.control('POST', '/__mock/organisations', { shapes: 'varied' })
    await client.control('PUT', `/__mock/organisations/${body.orgId}/shapes`, { shapes: 'full' })
    await client.control('POST', '/__mock/reset', { orgId: body.orgId })
    expect(await client.shapesOf(body.orgId)).toBe('varied')
  })
})

describe('the answer shapes in a state file', () => {
  let dir = ''
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'shapes-state-'))
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it("keeps an organisation's mode and each varied user's case across a restart", async () => {
    const stateFile = join(dir, 'state.db')
    const first = await startServer({ port: 0, stateFile })
    const client = clientOf(first.url)
    const [org] = first.core.credentials
    const key = org?.apiKeys[0] ?? ''
    await client.control('PUT', '/__mock/organisations/org-1/shapes', { shapes: 'varied' })
    const before = []
    for (const id of ['new-a', 'new-b', 'new-c'])
      before.push(await client.identify(key, 'org-1', id))
    const taken = first.core.calls('identify').map((c) => c.shape)
    await first.close()

    const second = await startServer({ port: 0, stateFile })
    try {
      const again = clientOf(second.url)
      expect(await again.shapesOf('org-1')).toBe('varied')
      for (const id of ['new-a', 'new-b', 'new-c']) await again.identify(key, 'org-1', id)
      expect(second.core.calls('identify').map((c) => c.shape)).toEqual(taken)
      // The turn goes on: the fourth user takes the case after the third's.
      await again.identify(key, 'org-1', 'new-d')
      expect(new Set(second.core.calls('identify').map((c) => c.shape)).size).toBe(4)
      expect(before.map((data) => data.registrationStatus)).toEqual(
        (
          await Promise.all(
            ['new-a', 'new-b', 'new-c'].map((id) =>
              again.control('GET', `/__mock/user?orgId=org-1&id=${id}`),
            ),
          )
        ).map((user) => user.body.profile.registrationStatus),
      )
    } finally {
      await second.close()
    }
  })
})
