import { afterAll, afterEach, beforeAll, describe, it, vi } from 'vitest'
import { type RunningServer, startServer } from '../../src/server/server.ts'
import { expectError } from '../support/expect-body.ts'

/**
 * The control endpoints answer 400 only for an input they refuse; an exception of any other
 * kind is a bug of the mock, and answers 500 — a `TypeError` included.
 */
describe('a control endpoint that hits a bug', () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer({ port: 0, usersPerOrganisation: 1 })
  })
  afterEach(() => vi.restoreAllMocks())
  afterAll(() => server.close())

  const post = (path: string, body: unknown) =>
    fetch(server.url + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
  const bug = () => {
    throw new TypeError("Cannot read properties of undefined (reading 'id')")
  }

  it('answers 500, not 400, when adding a webhook endpoint throws a TypeError', async () => {
    vi.spyOn(server.core.webhooks, 'add').mockImplementation(bug)
    await expectError(
      await post('/__mock/webhooks', { url: 'http://127.0.0.1:9/hook' }),
      500,
      'Internal server error',
    )
  })

  it('answers 500 when raising an event or queueing a fault throws a TypeError', async () => {
    vi.spyOn(server.core.events, 'raise').mockImplementation(async () => bug())
    vi.spyOn(server.core, 'queueFault').mockImplementation(bug)
    const event = { type: 'user.registered', data: {} }
    await expectError(await post('/__mock/events', event), 500, 'Internal server error')
    const fault = { operation: 'delete', status: 500 }
    await expectError(await post('/__mock/faults', fault), 500, 'Internal server error')
  })

  it('still answers 400 saying what is wrong for the inputs it refuses', async () => {
    await expectError(
      await post('/__mock/webhooks', { url: 'ftp://example.test/' }),
      400,
      'Invalid webhook: url: expected an http: or https: URL',
    )
    await expectError(
      await post('/__mock/events', { type: 'notifications.sent', orgId: 'org-1' }),
      400,
      'Invalid event: id: Invalid input: expected string, received undefined',
    )
    await expectError(
      await post('/__mock/faults', { operation: 'delete', status: 418 }),
      400,
      'Invalid fault: status: delete documents 403, 404 or 500: a fault takes one of them',
    )
  })
})
