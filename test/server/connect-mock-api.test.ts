import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectMockApi } from '../../src/client/connect-mock-api.ts'
import { ApiError } from '../../src/root/index.ts'
import { type RunningServer, startServer } from '../../src/server/server.ts'

/**
 * The mock-wide controls of `connectMockApi` against the server (the tenant handles have their
 * own suite, run on three transports): each answers as the in-process control does, and an error
 * answer rejects as an `ApiError` with its status.
 */
describe('connectMockApi against the server', () => {
  const token = 'client-control-token'
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer({ port: 0, controlToken: token, webhookRetrySchedule: [60_000] })
  })
  afterAll(() => server.close())

  it('sends the control token, and rejects without it as ApiError 401', async () => {
    await expect(connectMockApi(server.url).state()).rejects.toMatchObject({
      constructor: ApiError,
      status: 401,
      message: 'Unauthorized',
    })
    await expect(connectMockApi(`${server.url}/`, { controlToken: token }).ready).resolves.toBe(
      undefined,
    )
  })

  it('queues, lists and refuses faults; reads the state, the journal and the calls; resets', async () => {
    const api = connectMockApi(server.url, { controlToken: token })
    const [org] = await api.credentials
    expect(org).toEqual(server.core.credentials[0])
    await api.failNext('delete', { status: 404, count: 2 })
    expect(await api.queuedFaults()).toEqual(server.core.queuedFaults())
    const refused = await api.failNext('delete', { status: 418 }).catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(ApiError)
    expect(refused).toMatchObject({ status: 400, message: expect.stringMatching(/status/) })

    const answer = await fetch(`${server.url}/api/v1/users/${org?.orgId}/nobody`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${org?.apiKeys[0]}` },
    })
    expect(answer.status).toBe(404)
    expect(await api.calls('delete')).toEqual(server.core.calls('delete'))
    expect(await api.requests({ orgId: org?.orgId })).toEqual(
      server.core.requests({ orgId: org?.orgId }),
    )
    expect(await api.state()).toEqual(await server.core.state())

    await api.reset()
    expect(await api.calls()).toEqual([])
    expect(await api.queuedFaults()).toEqual([])
  })

  it('adds, lists and removes webhook endpoints, and raises events', async () => {
    const api = connectMockApi(server.url, { controlToken: token })
    const endpoint = await api.webhooks.add({ url: 'http://127.0.0.1:9/hooks' })
    expect(endpoint.secret).toMatch(/^whsec_/)
    expect(await api.webhooks.list()).toEqual([
      { id: endpoint.id, url: endpoint.url, events: endpoint.events },
    ])
    const [org] = await api.credentials
    const user = server.core.db.users.findFirst((q) => q.where({ orgId: org?.orgId }))
    const event = await api.events.raise({
      type: 'notifications.sent',
      orgId: org?.orgId ?? '',
      id: user?.id ?? '',
    })
    expect(event.id).toMatch(/^msg_/)
    expect((await api.webhooks.deliveries()).map((d) => d.id)).toEqual([event.id])
    await expect(
      api.events.raise({ type: 'notifications.sent', orgId: org?.orgId ?? '', id: 'nobody' }),
    ).rejects.toMatchObject({ status: 404, message: 'User not found' })
    expect(await api.webhooks.remove(endpoint.id)).toBe(true)
    expect(await api.webhooks.remove(endpoint.id)).toBe(false)
  })
})
