import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createMockApi, type DataFile, type OrganisationInput } from '../../src/root/index.ts'
import { type RunningServer, startServer } from '../../src/server/server.ts'
import { type CliProcess, startCli } from '../support/cli-process.ts'

/**
 * A `userId` is held by one user at every moment. The way two users came to hold one: tenant A
 * with a fixed `userId` U, A's user deleted, tenant B given U (free by then), then A reset. The
 * reset now gives A's returning user a new `userId`, so B keeps U and everything of it.
 */

const U = 'fixed-user-id'
const paths = [{ learningPathId: 'onboarding', name: 'Onboarding' }]
const userWithU = (id: string, firstName: string) => ({
  id,
  userId: U,
  firstName,
  registrationStatus: 'registered' as const,
  learningPath: { learningPathId: 'onboarding', startDate: '2025-01-01' },
  certificates: [{ learningPathId: 'onboarding', issuedAt: '2025-02-01T00:00:00+00:00' }],
})

interface StoredState {
  users: { orgId: string; id: string; userId: string }[]
  learningProgress: { userId: string }[]
  certificates: { userId: string }[]
}

/** The API and the controls of one mock, whichever way it is reached. */
interface Mock {
  call(method: string, path: string, key: string, body?: unknown): Promise<Response>
  createOrganisation(orgId: string, users: OrganisationInput['users']): Promise<string>
  resetOrganisation(orgId: string): Promise<void>
  state(): Promise<StoredState>
}

function overHttp(url: () => string): Mock {
  const control = (method: string, path: string, body: unknown) =>
    fetch(url() + path, {
      method,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
  return {
    call: (method, path, key, body) =>
      fetch(url() + path, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    async createOrganisation(orgId, users) {
      const created = await control('POST', '/__mock/organisations', {
        orgId,
        learningPaths: paths,
        users,
      })
      expect(created.status).toBe(201)
      return ((await created.json()) as { apiKey: string }).apiKey
    },
    async resetOrganisation(orgId) {
      expect((await control('POST', '/__mock/reset', { orgId })).status).toBe(204)
    },
    state: async () => (await fetch(`${url()}/__mock/state`)).json() as Promise<StoredState>,
  }
}

function inProcess(data?: DataFile): Mock {
  const api = createMockApi({ seededOrganisations: 0, data })
  return {
    call: (method, path, key, body) =>
      api.fetch(`https://api.test${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    createOrganisation: async (orgId, users) =>
      (await api.organisations.create({ orgId, learningPaths: paths, users })).apiKey,
    resetOrganisation: (orgId) => api.reset({ orgId }),
    state: () => api.state(),
  }
}

/** Deletes A's user holding U, then creates B with U: the state just before A's reset. */
async function giveUToB(mock: Mock, aKey: string): Promise<string> {
  expect((await mock.call('DELETE', '/api/v1/users/a/ada', aKey)).status).toBe(200)
  return mock.createOrganisation('b', [userWithU('bo', 'Bo')])
}

/** After A's reset: one user holds U (B's), and what B's user owns stays B's. */
async function expectUHeldByBOnly(mock: Mock, aKey: string, bKey: string) {
  const state = await mock.state()
  const holders = state.users.filter((u) => u.userId === U)
  expect(holders.map((u) => `${u.orgId}/${u.id}`)).toEqual(['b/bo'])
  const ada = state.users.find((u) => u.orgId === 'a' && u.id === 'ada')
  expect(ada?.userId).toMatch(/^[0-9a-f-]{36}$/)
  expect(new Set(state.users.map((u) => u.userId)).size).toBe(state.users.length)

  // B's sign-in token opens B's user, not A's.
  const identified = await mock.call('POST', '/api/v1/users/identify', bKey, {
    id: 'bo',
    orgId: 'b',
  })
  const { token } = (await identified.json()) as { token: string }
  const page = await mock.call('GET', `/webview?orgId=b&token=${token}&webview=true`, '')
  expect(await page.text()).toMatch(/<h2 id="learner">Bo<\/h2>/)

  // Deleting A's user leaves B's learning path and certificates.
  expect((await mock.call('DELETE', '/api/v1/users/a/ada', aKey)).status).toBe(200)
  const after = await mock.state()
  expect(after.learningProgress.filter((p) => p.userId === U)).toHaveLength(1)
  expect(after.certificates.filter((c) => c.userId === U)).toHaveLength(1)
}

describe('a reset of one organisation never brings back a userId another user holds', () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer({ port: 0, seededOrganisations: 0 })
  })
  afterAll(() => server.close())
  afterEach(() => server.core.reset())

  it('over HTTP: the returning user of a created organisation gets a new userId', async () => {
    const mock = overHttp(() => server.url)
    const aKey = await mock.createOrganisation('a', [userWithU('ada', 'Ada')])
    const bKey = await giveUToB(mock, aKey)
    await mock.resetOrganisation('a')
    await expectUHeldByBOnly(mock, aKey, bKey)
  })

  it('in-process: the same through createMockApi', async () => {
    const mock = inProcess()
    const aKey = await mock.createOrganisation('a', [userWithU('ada', 'Ada')])
    const bKey = await giveUToB(mock, aKey)
    await mock.resetOrganisation('a')
    await expectUHeldByBOnly(mock, aKey, bKey)
  })

  const data = {
    organisations: [{ orgId: 'a', apiKeys: ['key-of-a'], learningPaths: paths }],
    users: [{ orgId: 'a', ...userWithU('ada', 'Ada') }],
  }

  it('in-process: a data-file organisation with a fixed userId, reset after another took it', async () => {
    const mock = inProcess(data)
    const bKey = await giveUToB(mock, 'key-of-a')
    await mock.resetOrganisation('a')
    await expectUHeldByBOnly(mock, 'key-of-a', bKey)
  })

  it('a data-file organisation with a fixed userId, reset after another took it', async () => {
    const fromFile = await startServer({ port: 0, seededOrganisations: 0, data })
    try {
      const mock = overHttp(() => fromFile.url)
      const bKey = await giveUToB(mock, 'key-of-a')
      await mock.resetOrganisation('a')
      await expectUHeldByBOnly(mock, 'key-of-a', bKey)
    } finally {
      await fromFile.close()
    }
  })
})

describe('a seeded organisation reset after another took the userId of one of its users', () => {
  it('gives the returning seeded user a new userId, over HTTP', async () => {
    const server = await startServer({ port: 0, seededOrganisations: 1 })
    try {
      const mock = overHttp(() => server.url)
      const [seeded] = server.core.credentials
      const seededKey = seeded?.apiKeys[0] ?? ''
      const before = await mock.state()
      const victim = before.users.find((u) => u.orgId === 'org-1')
      if (!victim) throw new Error('no seeded user')
      const path = `/api/v1/users/org-1/${encodeURIComponent(victim.id)}`
      expect((await mock.call('DELETE', path, seededKey)).status).toBe(200)
      await mock.createOrganisation('b', [{ ...userWithU('bo', 'Bo'), userId: victim.userId }])
      await mock.resetOrganisation('org-1')
      const after = await mock.state()
      const holders = after.users.filter((u) => u.userId === victim.userId)
      expect(holders.map((u) => `${u.orgId}/${u.id}`)).toEqual(['b/bo'])
      expect(after.users.some((u) => u.orgId === 'org-1' && u.id === victim.id)).toBe(true)
      expect(new Set(after.users.map((u) => u.userId)).size).toBe(after.users.length)
    } finally {
      await server.close()
    }
  })
})

describe('every load refuses a given userId another user holds', () => {
  it('a created organisation and a put user over HTTP: 400 naming the path', async () => {
    const server = await startServer({ port: 0, seededOrganisations: 0 })
    try {
      const mock = overHttp(() => server.url)
      await mock.createOrganisation('a', [userWithU('ada', 'Ada')])
      const control = (method: string, path: string, body: unknown) =>
        fetch(server.url + path, {
          method,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
      const created = await control('POST', '/__mock/organisations', {
        orgId: 'b',
        learningPaths: paths,
        users: [userWithU('bo', 'Bo')],
      })
      expect(created.status).toBe(400)
      expect(((await created.json()) as { message: string }).message).toBe(
        'Invalid request parameters: users[0].userId: another user has this userId',
      )
      await mock.createOrganisation('c', [])
      const put = await control('PUT', '/__mock/organisations/c/users/cy', {
        registrationStatus: 'archived',
        userId: U,
      })
      expect(put.status).toBe(400)
      expect(((await put.json()) as { message: string }).message).toBe(
        'Invalid request parameters: userId: another user has this userId',
      )
      expect((await mock.state()).users.filter((u) => u.userId === U)).toHaveLength(1)
    } finally {
      await server.close()
    }
  })

  it('in-process: a created organisation rejects, a data file with a seeded userId throws', async () => {
    const api = createMockApi({ seededOrganisations: 0 })
    await api.organisations.create({
      orgId: 'a',
      learningPaths: paths,
      users: [userWithU('ada', 'Ada')],
    })
    await expect(
      api.organisations.create({
        orgId: 'b',
        learningPaths: paths,
        users: [userWithU('bo', 'Bo')],
      }),
    ).rejects.toThrow(
      new TypeError('Invalid request parameters: users[0].userId: another user has this userId'),
    )
    const seeded = await createMockApi().state()
    const seededUserId = seeded.users.find((u) => u.orgId === 'org-1')?.userId
    expect(() =>
      createMockApi({
        data: {
          organisations: [{ orgId: 'x', apiKeys: ['key-of-x'] }],
          users: [{ orgId: 'x', id: 'xi', registrationStatus: 'archived', userId: seededUserId }],
        },
      }),
    ).toThrow(/^users\[0\]\.userId: another user has this userId$/)
  })
})

describe('with --state-file, across a restart', { timeout: 30_000 }, () => {
  let dir = ''
  const running = new Set<CliProcess>()
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'user-ids-unique-'))
  })
  afterAll(() => {
    for (const cli of running) cli.child.kill('SIGKILL')
    rmSync(dir, { recursive: true, force: true })
  })

  async function serve(stateFile: string) {
    const started = await startCli(['--state-file', stateFile, '--orgs', '0'])
    running.add(started.cli)
    return started
  }

  it('keeps the user that holds the userId after the other organisation’s reset', async () => {
    const stateFile = join(dir, 'state.db')
    let url = ''
    const mock = overHttp(() => url)
    const first = await serve(stateFile)
    url = first.url
    const aKey = await mock.createOrganisation('a', [userWithU('ada', 'Ada')])
    const bKey = await giveUToB(mock, aKey)
    await mock.resetOrganisation('a')
    first.cli.child.kill('SIGKILL')
    await first.cli.exit
    running.delete(first.cli)

    const second = await serve(stateFile)
    url = second.url
    const state = await mock.state()
    expect(state.users.map((u) => `${u.orgId}/${u.id}`).sort()).toEqual(['a/ada', 'b/bo'])
    await expectUHeldByBOnly(mock, aKey, bKey)
  })
})
