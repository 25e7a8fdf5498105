import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type DataFileUser,
  dataFileJsonSchema,
  type ResolvedDataFile,
} from '../../src/api/data-file.ts'
import { createMockApi } from '../../src/root/index.ts'
import { type RunningServer, startServer } from '../../src/server/server.ts'
import { type CliProcess, runCli, startCli } from '../support/cli-process.ts'

const examplePath = new URL('../../examples/many-tests/data.json', import.meta.url)
const example: ResolvedDataFile = JSON.parse(readFileSync(examplePath, 'utf8'))
const [acme] = example.organisations
const acmeKey = acme?.apiKeys[0] ?? ''
const usersWith = (test: (user: DataFileUser) => boolean) => example.users.filter(test)

/** What identify answers for `user` as the file declares it (identify sets `lastActive` to now). */
function declaredProfile(user: DataFileUser) {
  const path = user.learningPath
  return {
    userId: user.userId ?? expect.any(String),
    registrationStatus: user.registrationStatus,
    registeredAt: user.registeredAt ?? null,
    lastActive: expect.any(String),
    firstName: user.firstName ?? null,
    lastName: user.lastName ?? null,
    country: user.country ?? null,
    region: user.region ?? null,
    sex: user.sex ?? null,
    ageBracket: user.ageBracket ?? null,
    userGroups: user.userGroups ?? [],
    learningPathId: path?.learningPathId ?? null,
    learningPathName: path ? 'Workplace Safety' : null,
    learningPathStartDate: path?.startDate ?? null,
    learningPathDueDate: path?.dueDate ?? null,
    learningPathCompletedAt: path?.completedAt ?? null,
  }
}

/** Identifies every user of the example file at `url` and expects each as declared. */
async function expectEveryUserAsDeclared(url: string, fetcher: typeof fetch = fetch) {
  expect(usersWith((u) => u.registrationStatus === 'archived')).not.toHaveLength(0)
  expect(usersWith((u) => u.registrationStatus === 'unregistered')).not.toHaveLength(0)
  expect(usersWith((u) => u.learningPath?.completedAt !== undefined)).not.toHaveLength(0)
  for (const user of example.users) {
    const response = await fetcher(`${url}/api/v1/users/identify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${acmeKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: user.id, orgId: user.orgId }),
    })
    expect(response.status, user.id).toBe(200)
    const { data } = await response.json()
    expect(data, user.id).toEqual(declaredProfile(user))
  }
}

describe('a data file', { timeout: 20_000 }, () => {
  it('is valid against the JSON Schema generated from the zod schema, which a bad file fails', () => {
    const ajv = new Ajv2020({ allErrors: true })
    addFormats.default(ajv)
    const validate = ajv.compile(dataFileJsonSchema())
    expect(validate(example), JSON.stringify(validate.errors)).toBe(true)
    const bad = { ...example, users: [{ ...example.users[0], registrationStatus: 'gone' }] }
    expect(validate(bad)).toBe(false)
  })

  it('has its JSON Schema committed at the package export, as data-schema writes it', async () => {
    const committed = readFileSync(new URL('../../data-file.schema.json', import.meta.url), 'utf8')
    expect(JSON.parse(committed)).toEqual(dataFileJsonSchema())
    const packageJson = JSON.parse(
      readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
    )
    expect(packageJson.exports['./data-file.schema.json']).toBe('./data-file.schema.json')
    expect(packageJson.files).toContain('data-file.schema.json')
    const out = join(mkdtempSync(join(tmpdir(), 'data-schema-')), 'schema.json')
    const cli = runCli(['data-schema', '--out', out])
    expect((await cli.exit).code).toBe(0)
    expect(readFileSync(out, 'utf8')).toBe(committed)
  })

  describe('given to serve --data', () => {
    let cli: CliProcess
    let url: string
    beforeAll(async () => {
      ;({ cli, url } = await startCli(['--data', examplePath.pathname, '--orgs', '1']))
    }, 20_000)
    afterAll(() => {
      cli.child.kill('SIGKILL')
    })

    it('answers identify for every user in the state the file declares', async () => {
      await expectEveryUserAsDeclared(url)
    })

    it('adds its organisations to the seeded ones, and lists its keys', async () => {
      expect(cli.stdout()).toMatch(/org-1\s+sk_test_\w{24}/)
      expect(cli.stdout()).toMatch(new RegExp(`acme\\s+${acmeKey}`))
      const certificates = await fetch(`${url}/__mock/user?orgId=acme&id=grace`)
      expect(await certificates.json()).toMatchObject({
        progress: { percentComplete: 100 },
        certificates: [
          {
            learningPathId: 'lp-safety',
            title: 'Certificate of completion: Workplace Safety',
            issuedAt: '2025-01-20T16:00:00+00:00',
          },
        ],
      })
    })
  })

  it('replaces the seed with --orgs 0, and in-process with seededOrganisations: 0', async () => {
    const server = await startServer({ port: 0, data: example, seededOrganisations: 0 })
    try {
      expect(server.core.credentials.map((c) => c.orgId)).toEqual(['acme'])
      await expectEveryUserAsDeclared(server.url)
    } finally {
      await server.close()
    }
    const api = createMockApi({ data: example, seededOrganisations: 0 })
    expect(api.credentials).toEqual([{ orgId: 'acme', name: 'Acme Learning', apiKeys: [acmeKey] }])
    await expectEveryUserAsDeclared('https://api.test', api.fetch)
  })

  it('comes back as declared after a reset', async () => {
    const api = createMockApi({ data: example })
    const deleted = await api.fetch('https://api.test/api/v1/users/acme/ada', {
      method: 'DELETE',
      headers: { authorization: `Bearer ${acmeKey}` },
    })
    expect(deleted.status).toBe(200)
    await api.reset()
    await expectEveryUserAsDeclared('https://api.test', api.fetch)
  })

  it('defaults percentComplete to 0 before completion and omitted fields to null', async () => {
    const api = createMockApi({
      seededOrganisations: 0,
      data: {
        organisations: [
          {
            orgId: 'o',
            apiKeys: ['k-0123456789'],
            learningPaths: [{ learningPathId: 'p', name: 'P' }],
          },
        ],
        users: [
          {
            orgId: 'o',
            id: 'u',
            registrationStatus: 'registered',
            learningPath: { learningPathId: 'p', startDate: '2025-01-01' },
          },
        ],
      },
    })
    await api.ready
    const [progress] = api.db.learningProgress.all()
    expect(progress).toMatchObject({ percentComplete: 0, dueDate: null, completedAt: null })
    const [user] = api.db.users.all()
    expect(user).toMatchObject({
      registeredAt: null,
      lastActive: null,
      firstName: null,
      userGroups: [],
    })
  })
})

describe('a bad data file', { timeout: 30_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'data-file-'))
  const org = { orgId: 'acme', apiKeys: ['sk_test_acme'], userGroups: [{ groupId: 'g' }] }
  const user = { orgId: 'acme', id: 'u1', registrationStatus: 'registered' }

  /** Writes `content` as a file and expects serve to refuse it with `lines`, starting nothing. */
  async function expectRefused(content: unknown, lines: RegExp[]) {
    const file = join(dir, `bad-${Math.random().toString(36).slice(2)}.json`)
    writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content))
    const cli = runCli(['serve', '--port', '0', '--data', file])
    expect((await cli.exit).code).toBe(1)
    expect(cli.stdout()).toBe('')
    const told = cli.stderr().trim().split('\n')
    expect(told).toHaveLength(lines.length)
    told.forEach((line, i) => {
      expect(line).toMatch(new RegExp(`^identify-api-mock: ${file}: `))
      expect(line).toMatch(lines[i] as RegExp)
    })
  }

  it('is refused with one line per problem naming the file and the path: values', async () => {
    await expectRefused(
      {
        organisations: [org],
        users: [user, { ...user, id: 'u2', registrationStatus: 'gone', registeredAt: 'yesterday' }],
      },
      [
        /users\[1\]\.registrationStatus: .*registered.*unregistered.*archived/,
        /users\[1\]\.registeredAt: /,
      ],
    )
  })

  it('is refused for references its organisations do not declare, and repeated ids', async () => {
    await expectRefused(
      {
        organisations: [org],
        users: [
          user,
          { ...user, userGroups: ['g', 'h'] },
          { ...user, id: 'u3', orgId: 'nobody' },
          { ...user, id: 'u4', learningPath: { learningPathId: 'lp', startDate: '2025-01-01' } },
        ],
      },
      [
        /users\[2\]\.orgId: no organisation nobody/,
        /users\[1\]\.id: another user of the organisation has this id/,
        /users\[1\]\.userGroups\[1\]: the organisation declares no user group h/,
        /users\[3\]\.learningPath\.learningPathId: the organisation declares no learning path lp/,
      ],
    )
  })

  it('is refused for an unknown field, a key that is not visible ASCII, or a repeated orgId', async () => {
    await expectRefused(
      {
        organisations: [{ ...org, apiKeys: ['clé sk'] }, org],
        users: [{ ...user, nickname: 'x' }],
      },
      [
        /organisations\[0\]\.apiKeys\[0\]: .*visible ASCII/,
        /users\[0\]: .*nickname/,
        /organisations\[1\]\.orgId: orgId acme is declared twice/,
      ],
    )
  })

  it('is refused with every problem at once: values and references together', async () => {
    await expectRefused(
      {
        organisations: [org, { orgId: 'broken', apiKeys: 'not a list' }],
        users: [
          { ...user, registrationStatus: 'gone' },
          { ...user, id: 'u2', userGroups: ['h'] },
          { ...user, id: 'u3', orgId: 'broken' },
          { ...user, id: 'u4', orgId: 'nobody' },
        ],
      },
      [
        /organisations\[1\]\.apiKeys: /,
        /users\[0\]\.registrationStatus: .*registered.*unregistered.*archived/,
        /users\[3\]\.orgId: no organisation nobody/,
        /users\[1\]\.userGroups\[0\]: the organisation declares no user group h/,
      ],
    )
  })

  it('is refused when it is not JSON, or cannot be read', async () => {
    await expectRefused('{"organisations": [', [/not JSON/])
    const cli = runCli(['serve', '--port', '0', '--data', join(dir, 'missing.json')])
    expect((await cli.exit).code).toBe(1)
    expect(cli.stderr()).toMatch(/missing\.json: cannot be read: no such file$/m)
    expect(cli.stdout()).toBe('')
  })

  it('is refused in-process with a TypeError naming the path', () => {
    expect(() =>
      createMockApi({
        data: {
          organisations: [org],
          users: [{ ...user, registrationStatus: 'gone' as 'archived' }],
        },
      }),
    ).toThrow(/Invalid options: data\.users\[0\]\.registrationStatus: /)
    expect(() =>
      createMockApi({
        data: {
          organisations: [org],
          users: [
            { ...user, registrationStatus: 'gone' as 'archived' },
            { ...user, id: 'u2', registrationStatus: 'archived' as const, userGroups: ['h'] },
          ],
        },
      }),
    ).toThrow(
      /^Invalid options: data\.users\[0\]\.registrationStatus: [^;]+; data\.users\[1\]\.userGroups\[0\]: the organisation declares no user group h$/,
    )
  })
})

describe('organisations past maxOrganisations at start', { timeout: 30_000 }, () => {
  let server: RunningServer | undefined
  afterAll(() => server?.close())
  it('are refused by createMockApi, and by serve --max-orgs with exit 1', async () => {
    expect(() => createMockApi({ seededOrganisations: 3, maxOrganisations: 2 })).toThrow(
      /3 organisations, more than maxOrganisations \(2\)/,
    )
    const cli = runCli(['serve', '--port', '0', '--orgs', '3', '--max-orgs', '2'])
    expect((await cli.exit).code).toBe(1)
    expect(cli.stderr()).toMatch(/maxOrganisations/)
  })
})
