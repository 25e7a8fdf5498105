import { readFileSync } from 'node:fs'
import { describe, expect, it, vi } from 'vitest'
import { controlCall } from '../support/control-call.ts'
import { stateFileServers } from '../support/state-file-server.ts'

/** `serve --state-file` keeps an organisation's snapshots: a server killed and started again restores them. */

vi.setConfig({ testTimeout: 60_000 })
const key = 'snapshot-state-key'

const { file, serve, kill } = stateFileServers('snapshots', key)

describe('serve --state-file', () => {
  it('keeps a snapshot, its queued faults and chaos with it, across kill -9; a restore after the restart puts it back', async () => {
    const path = file('snapshots.db')
    const first = await serve(path)
    const call = (method: string, at: string, body?: unknown) =>
      controlCall(first.url, method, at, body)
    await call('PUT', '/organisations/acme/users/ada', { registrationStatus: 'archived' })
    await call('PUT', '/organisations/acme/clock', { frozenAt: '2031-03-04T05:06:07Z' })
    await call('POST', '/faults', { operation: 'delete', status: 500, orgId: 'acme', count: 2 })
    const chaos = await call('PUT', '/organisations/acme/chaos', {
      rate: 0.5,
      cases: ['delete-status-403'],
      seed: 3,
    })
    expect(chaos.status).toBe(200)
    const endpoint = await call('POST', '/webhooks', {
      url: 'http://127.0.0.1:9/hook',
      orgId: 'acme',
    })
    const secret = (endpoint.body as { secret: string }).secret.slice('whsec_'.length)
    const saved = await call('POST', '/organisations/acme/snapshots', { name: 'base' })
    expect(saved).toMatchObject({ status: 201, body: { name: 'base', users: 9 } })
    await kill(first)
    // The endpoint's secret is in the snapshot sealed, with a key the killed server took with it.
    expect(readFileSync(path).includes(secret)).toBe(false)
    expect(readFileSync(path).includes(Buffer.from(secret, 'base64'))).toBe(false)

    const second = await serve(path)
    const again = (method: string, at: string, body?: unknown) =>
      controlCall(second.url, method, at, body)
    expect((await again('GET', '/organisations/acme/snapshots')).body).toEqual([saved.body])
    await again('DELETE', '/user?orgId=acme&id=ada')
    await again('PUT', '/organisations/acme/clock', { real: true })
    expect((await again('POST', '/organisations/acme/snapshots/base/restore')).status).toBe(204)
    expect((await again('GET', '/user?orgId=acme&id=ada')).body).toMatchObject({
      profile: { registrationStatus: 'archived' },
    })
    expect((await again('GET', '/organisations/acme/clock')).body).toEqual({
      now: '2031-03-04T05:06:07.000Z',
      mode: 'frozen',
    })
    // The faults were in memory only when the server died: the snapshot kept them.
    expect((await again('GET', '/faults?orgId=acme')).body).toEqual([
      { operation: 'delete', status: 500, remaining: 2, delayMs: 0, orgId: 'acme' },
    ])
    expect((await again('GET', '/organisations/acme/chaos')).body).toEqual(chaos.body)
    // Its endpoint is not: like the live endpoints, a restart does not keep it.
    expect((await again('GET', '/webhooks?orgId=acme')).body).toEqual([])
    await kill(second)
  })
})
