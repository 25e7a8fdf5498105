import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { promisify } from 'node:util'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createOpenApiDocument, type WebhookEventInput } from '../../src/root/index.ts'
import { type RunningServer, startServer } from '../../src/server/server.ts'

const run = promisify(execFile)
const committed = readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8')
const document = JSON.parse(committed)

describe('openapi.json', () => {
  it('is up to date with the zod schemas (regenerate with npm run openapi)', () => {
    expect(committed).toBe(`${JSON.stringify(createOpenApiDocument(), null, 2)}\n`)
  })

  it('passes an external linter, @redocly/cli lint, without warnings', async () => {
    const { stdout, stderr } = await run('npx', ['redocly', 'lint', 'openapi.json'], {
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    })
    const output = stdout + stderr
    expect(output).toContain('Your API description is valid')
    expect(output).not.toMatch(/warning/i)
  }, 60_000)

  it('documents every status of each operation', () => {
    const statuses = (path: string, method: string) =>
      Object.keys(document.paths[path][method].responses).sort()
    expect(statuses('/api/v1/users/identify', 'post')).toEqual([
      '200',
      '400',
      '401',
      '403',
      '405',
      '500',
    ])
    expect(statuses('/api/v1/users/{orgId}/{id}', 'delete')).toEqual([
      '200',
      '401',
      '403',
      '404',
      '405',
      '500',
    ])
    expect(document.components.securitySchemes.bearerAuth).toMatchObject({
      type: 'http',
      scheme: 'bearer',
    })
  })
})

describe('real traffic to the standalone server, validated against openapi.json', () => {
  let server: RunningServer
  let key = ''
  const ajv = new Ajv2020({ strict: false, allErrors: true })
  addFormats.default(ajv)
  ajv.addSchema(document, 'openapi.json')

  beforeAll(async () => {
    server = await startServer({ port: 0 })
    key = server.core.credentials[0]?.apiKeys[0] ?? ''
  })
  afterAll(() => server.close())

  /** Checks a response against the document: its status is listed, its body matches, its example too. */
  async function expectDocumented(res: Response, path: string, method: string) {
    const operation = document.paths[path][method]
    const documented = operation.responses[String(res.status)]
    expect(documented, `status ${res.status} of ${method} ${path}`).toBeDefined()
    const media = documented.content['application/json']
    const body = await res.json()
    const ref = media.schema.$ref.replace('#/', 'openapi.json#/')
    const validate = ajv.getSchema(ref)
    if (!validate) throw new Error(`no schema ${ref}`)
    expect(validate(body), JSON.stringify(validate.errors)).toBe(true)
    if (media.example) expect(body).toEqual(media.example)
    return body
  }

  const identifyPath = '/api/v1/users/identify'
  const deletePath = '/api/v1/users/{orgId}/{id}'
  const identify = (
    body: unknown,
    headers: Record<string, string> = { authorization: `Bearer ${key}` },
  ) =>
    fetch(`${server.url}${identifyPath}`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
  const remove = (
    orgId: string,
    id: string,
    headers: Record<string, string> = { authorization: `Bearer ${key}` },
  ) => fetch(`${server.url}/api/v1/users/${orgId}/${id}`, { method: 'DELETE', headers })

  it('identify: 200, 400, 401, 403, 405 and 500', async () => {
    const ok = await expectDocumented(
      await identify({ id: 'oa', orgId: 'org-1', data: { firstName: 'Ada' } }),
      identifyPath,
      'post',
    )
    expect(ok.data.firstName).toBe('Ada')
    await expectDocumented(await identify({ id: '', orgId: 'org-1' }), identifyPath, 'post')
    await expectDocumented(await identify({ id: 'x', orgId: 'org-1' }, {}), identifyPath, 'post')
    await expectDocumented(await identify({ id: 'x', orgId: 'org-2' }), identifyPath, 'post')
    await expectDocumented(await fetch(`${server.url}${identifyPath}`), identifyPath, 'post')
    server.core.failNext('identify', { status: 500 })
    await expectDocumented(await identify({ id: 'x', orgId: 'org-1' }), identifyPath, 'post')
  })

  it('delete: 200, 401, 403, 404, 405 and 500', async () => {
    await identify({ id: 'gone', orgId: 'org-1' })
    const ok = await expectDocumented(await remove('org-1', 'gone'), deletePath, 'delete')
    expect(ok).toEqual({ id: 'gone', deleted: true })
    await expectDocumented(
      await remove('org-1', 'gone', { authorization: 'Basic x' }),
      deletePath,
      'delete',
    )
    await expectDocumented(await remove('org-2', 'gone'), deletePath, 'delete')
    await expectDocumented(await remove('org-1', 'gone'), deletePath, 'delete')
    await expectDocumented(
      await fetch(`${server.url}/api/v1/users/org-1/x`, { method: 'PATCH' }),
      deletePath,
      'delete',
    )
    server.core.failNext('delete', { status: 500 })
    await expectDocumented(await remove('org-1', 'gone'), deletePath, 'delete')
  })

  it('is served by the server at GET /openapi.json', async () => {
    const res = await fetch(`${server.url}/openapi.json`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('application/json')
    expect(await res.json()).toEqual(document)
    const post = await fetch(`${server.url}/openapi.json`, { method: 'POST' })
    expect(post.status).toBe(405)
  })

  it('describes both named webhooks, and the events the mock raises match them', async () => {
    expect(Object.keys(document.webhooks)).toEqual(['notifications.sent', 'user.course.started'])
    const [user] = (await server.core.state()).users
    if (!user) throw new Error('no seeded user')
    for (const [type, name] of [
      ['notifications.sent', 'NotificationsSentEvent'],
      ['user.course.started', 'UserCourseStartedEvent'],
    ] as const) {
      const post = document.webhooks[type].post
      expect(post.parameters.map((p: { name: string }) => p.name)).toEqual([
        'svix-id',
        'svix-timestamp',
        'svix-signature',
      ])
      expect(post.requestBody.content['application/json'].schema.allOf).toEqual([
        { $ref: '#/components/schemas/WebhookEnvelope' },
        { $ref: `#/components/schemas/${name}` },
      ])
      const { id: _, ...envelope } = await server.core.events.raise({
        type,
        orgId: user.orgId,
        id: user.id,
      } as WebhookEventInput)
      for (const schema of ['WebhookEnvelope', name]) {
        const validate = ajv.getSchema(`openapi.json#/components/schemas/${schema}`)
        expect(validate?.(envelope), JSON.stringify(validate?.errors)).toBe(true)
      }
      const other = ajv.getSchema(`openapi.json#/components/schemas/${name}`)
      expect(other?.({ ...envelope, api_version: '2024-01-01' })).toBe(false)
    }
  })

  it('accepts what the real API may send: profile fields absent or null', () => {
    const validate = ajv.getSchema('openapi.json#/components/schemas/IdentifyUserResponse')
    expect(
      validate?.({
        id: 'x',
        token: 't',
        data: { userId: 'u', registrationStatus: 'archived', userGroups: [] },
      }),
    ).toBe(true)
    expect(
      validate?.({
        id: 'x',
        token: 't',
        data: { userId: 'u', registrationStatus: 'gone', userGroups: [] },
      }),
    ).toBe(false)
    expect(
      validate?.({
        id: 'x',
        token: 't',
        extra: 1,
        data: { userId: 'u', registrationStatus: 'archived', userGroups: [] },
      }),
    ).toBe(false)
  })
})
