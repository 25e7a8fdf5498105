import { describe, expect, it, vi } from 'vitest'
import { controlCall } from '../support/control-call.ts'
import { stateFileServers } from '../support/state-file-server.ts'

/** `serve --state-file` keeps the clocks a test set: a server killed and started again reads them. */

vi.setConfig({ testTimeout: 60_000 })
const key = 'clock-state-key'
const json = { 'content-type': 'application/json' }

const { file, serve, kill } = stateFileServers('clocks', key)

const control = async (url: string, method: string, path: string, body?: unknown) =>
  (await controlCall(url, method, path, body)).body

describe('serve --state-file', () => {
  it('keeps a frozen clock frozen at the same instant after kill -9 and a restart', async () => {
    const path = file('clocks.db')
    const first = await serve(path)
    await control(first.url, 'PUT', '/organisations/acme/clock', {
      frozenAt: '2031-03-04T05:06:07Z',
    })
    await control(first.url, 'POST', '/organisations/acme/clock/advance', { ms: 1000 })
    const tenant = await control(first.url, 'POST', '/organisations', {
      clock: { frozenAt: '2032-01-01T00:00:00Z' },
    })
    await control(first.url, 'PUT', '/clock', { startAt: '2040-01-01T00:00:00Z' })
    const identified = await fetch(`${first.url}/api/v1/users/identify`, {
      method: 'POST',
      headers: { ...json, authorization: `Bearer ${key}` },
      body: JSON.stringify({ id: 'ada', orgId: 'acme' }),
    })
    const { token } = (await identified.json()) as { token: string }
    await kill(first)

    const second = await serve(path)
    expect(await control(second.url, 'GET', '/organisations/acme/clock')).toEqual({
      now: '2031-03-04T05:06:08.000Z',
      mode: 'frozen',
    })
    expect(await control(second.url, 'GET', `/organisations/${tenant.orgId}/clock`)).toEqual({
      now: '2032-01-01T00:00:00.000Z',
      mode: 'frozen',
    })
    // A running clock ran on while the server was down: it started at 2040 before the kill.
    const mock = await control(second.url, 'GET', '/clock')
    expect(mock.mode).toBe('running')
    const ran = Date.parse(mock.now ?? '') - Date.parse('2040-01-01T00:00:00Z')
    expect(ran).toBeGreaterThan(0)
    expect(ran).toBeLessThan(60_000)
    // The token minted before the kill expires at its TTL of acme's time.
    await control(second.url, 'POST', '/organisations/acme/clock/advance', { ms: 299_999 })
    const webView = () =>
      fetch(`${second.url}/webview?orgId=acme&token=${token}`, { method: 'HEAD' })
    expect((await webView()).status).toBe(200)
    await control(second.url, 'POST', '/organisations/acme/clock/advance', { ms: 1 })
    expect((await webView()).status).toBe(401)
  })
})
