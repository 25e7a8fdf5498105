import { describe, expect, it } from 'vitest'
import { connectMockApi } from '../../src/client/connect-mock-api.ts'
import { stateFileServers } from '../support/state-file-server.ts'

/**
 * A call applied and then answered by a failure is committed to the state file before the client
 * meets the failure: after a `kill -9` and a restart on the same file, its change is there.
 */

const key = 'failures-state-key'

const { file, serve, kill } = stateFileServers('failures', key)

const call = (url: string, method: string, path: string, body?: unknown) =>
  fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  }).then(
    (response) => response.status,
    (error: Error) => error.name,
  )

describe('serve --state-file, a failure after an applied call', () => {
  it('keeps the call through kill -9 and a restart: the delete and the identify a reset lost', async () => {
    const path = file('applied.db')
    const first = await serve(path, ['--users', '0'])
    const client = connectMockApi(first.url)
    await client.organisations.putUser('acme', 'ada', { registrationStatus: 'registered' })
    await client.failNext('delete-reset-applied')
    expect(await call(first.url, 'DELETE', '/api/v1/users/acme/ada')).toBe('TypeError')
    await client.failNext('identify-hang-applied', {})
    await client.failNext('identify', { kind: 'empty', applied: false })
    const hung = await fetch(`${first.url}/api/v1/users/identify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'grace', orgId: 'acme' }),
      signal: AbortSignal.timeout(300),
    }).then(
      (response) => response.status,
      (error: Error) => error.name,
    )
    expect(hung).toBe('TimeoutError')
    expect(
      await call(first.url, 'POST', '/api/v1/users/identify', { id: 'linus', orgId: 'acme' }),
    ).toBe('TypeError')

    await kill(first)

    const second = await serve(path, ['--users', '0'])
    const state = await connectMockApi(second.url).state()
    // The delete and the identify took effect before their answers were lost; the identify not
    // applied changed nothing.
    expect(state.users.map((u) => u.id)).toEqual(['grace'])
    expect(await call(second.url, 'DELETE', '/api/v1/users/acme/ada')).toBe(404)
  }, 60_000)
})
