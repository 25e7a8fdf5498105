import { describe, expect, it } from 'vitest'
import { connectMockApi } from '../../src/client/connect-mock-api.ts'
import { stateFileServers } from '../support/state-file-server.ts'

/**
 * `serve --chaos` with `--state-file`: a call the chaos fails with an applied case is committed
 * before its client meets the failure, so its change survives a `kill -9`; one not applied
 * changes nothing.
 */

const key = 'chaos-state-key'

const { file, serve, kill } = stateFileServers('chaos', key)

const identify = (url: string, id: string) =>
  fetch(`${url}/api/v1/users/identify`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id, orgId: 'acme' }),
  }).then(
    (response) => response.status,
    (error: Error) => error.name,
  )

describe('serve --chaos --state-file', () => {
  it('keeps the calls an applied case failed through kill -9, and nothing of the others', async () => {
    const path = file('chaos.db')
    const chaos = ['--chaos', '1', '--chaos-seed', '11', '--chaos-calls', '2']
    const cases = ['--chaos-cases', 'identify-reset-applied,identify-gateway-502-applied']
    const first = await serve(path, ['--users', '0', ...chaos, ...cases])
    const client = connectMockApi(first.url)
    expect(await client.chaos()).toMatchObject({ rate: 1, seed: 11, calls: 2, drawn: 0 })
    const met = [await identify(first.url, 'ada'), await identify(first.url, 'grace')]
    expect(met.every((status) => status === 'TypeError' || status === 502)).toBe(true)
    const failures = (await client.requests()).map((entry) => entry.failure)
    expect(failures).toEqual([
      expect.objectContaining({ applied: true, chaos: true }),
      expect.objectContaining({ applied: true, chaos: true }),
    ])
    // Its two calls drawn, the chaos has ended; the organisation's own, not applied, follows.
    expect(await client.chaos()).toBeNull()
    await client.organisations.setChaos('acme', { rate: 1, cases: ['identify-empty'], seed: 1 })
    expect(await identify(first.url, 'linus')).toBe('TypeError')

    await kill(first)

    const second = await serve(path, ['--users', '0'])
    const state = await connectMockApi(second.url).state()
    expect(state.users.map((user) => user.id).sort()).toEqual(['ada', 'grace'])
  }, 60_000)
})
