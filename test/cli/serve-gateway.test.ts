import { writeFileSync } from 'node:fs'
import { describe, expect, it, vi } from 'vitest'
import { expectRefusal, startCli } from '../support/cli-process.ts'
import { controlCall } from '../support/control-call.ts'
import { stateFileServers } from '../support/state-file-server.ts'

/**
 * `serve --gateway` and `--gateway-read-timeout` (and the variable) put a gateway in front of the
 * API; `--state-file` keeps every gateway a test set across `kill -9`.
 */

vi.setConfig({ testTimeout: 60_000 })
const key = 'gateway-state-key'

const { file, serve, kill } = stateFileServers('gateways', key)

const control = async (url: string, method: string, path: string, body?: unknown) =>
  (await controlCall(url, method, path, body)).body

describe('serve --gateway', () => {
  it('stands the mock behind the gateway named, by flag or variable', async () => {
    const flagged = await startCli(['--gateway', 'haproxy', '--gateway-read-timeout', '1500'])
    expect(await control(flagged.url, 'GET', '/gateway')).toEqual({
      gateway: 'haproxy',
      readTimeoutMs: 1500,
    })
    // The banner says what stands in front, as it does of chaos.
    expect(flagged.cli.stdout()).toContain(
      'Gateway: haproxy in front of the API (read timeout 1500 ms): every failure arrives as haproxy gives it (GET /__mock/gateway).\n',
    )
    flagged.cli.child.kill()
    const variable = await startCli([], [], { IDENTIFY_API_MOCK_GATEWAY: 'nginx' })
    expect(await control(variable.url, 'GET', '/gateway')).toEqual({
      gateway: 'nginx',
      readTimeoutMs: 60_000,
      buffering: true,
    })
    expect(variable.cli.stdout()).toContain(
      'Gateway: nginx in front of the API (read timeout 60000 ms, buffering on)',
    )
    variable.cli.child.kill()
    // No gateway, no line.
    const plain = await startCli()
    expect(plain.cli.stdout()).not.toContain('Gateway:')
    plain.cli.child.kill()
  })

  it('refuses an unknown gateway, a timeout out of range and a data file whose gateway is wrong, naming each', async () => {
    await expectRefusal(
      ['serve', '--gateway', 'envoy'],
      /--gateway expected none, nginx or haproxy, not "envoy"/,
    )
    await expectRefusal(
      ['serve', '--gateway-read-timeout', '0'],
      /--gateway-read-timeout .*from 1 to 3600000/,
    )
    const data = file('bad-gateway.json')
    writeFileSync(
      data,
      JSON.stringify({
        organisations: [
          {
            orgId: 'a',
            apiKeys: ['sk_gateway_key_1'],
            gateway: { gateway: 'haproxy', buffering: true },
          },
        ],
        users: [],
      }),
    )
    await expectRefusal(
      ['serve', '--data', data],
      /bad-gateway\.json: organisations\[0\]\.gateway\.buffering: buffering is an nginx setting/,
    )
  })

  it('keeps the gateways a test set in the state file, after kill -9 and a restart', async () => {
    const path = file('gateways.db')
    const flags = ['--gateway', 'haproxy']
    const first = await serve(path, flags)
    await control(first.url, 'PUT', '/organisations/acme/gateway', {
      gateway: 'nginx',
      buffering: false,
    })
    const tenant = await control(first.url, 'POST', '/organisations', {
      gateway: { gateway: 'nginx', readTimeoutMs: 250 },
    })
    await control(first.url, 'PUT', '/gateway', { gateway: 'none', readTimeoutMs: 10 })
    await kill(first)

    const second = await serve(path, flags)
    expect(await control(second.url, 'GET', '/organisations/acme/gateway')).toEqual({
      gateway: 'nginx',
      readTimeoutMs: 60_000,
      buffering: false,
    })
    expect(await control(second.url, 'GET', `/organisations/${tenant.orgId}/gateway`)).toEqual({
      gateway: 'nginx',
      readTimeoutMs: 250,
      buffering: true,
    })
    expect(await control(second.url, 'GET', '/gateway')).toEqual({
      gateway: 'none',
      readTimeoutMs: 10,
    })
    // A reset of the created tenant returns it to its creation, kept in the file too.
    await control(second.url, 'PUT', `/organisations/${tenant.orgId}/gateway`, { gateway: null })
    await control(second.url, 'POST', '/reset', { orgId: tenant.orgId })
    expect(
      (await control(second.url, 'GET', `/organisations/${tenant.orgId}/gateway`)).readTimeoutMs,
    ).toBe(250)
    // A reset of the whole mock: the flag's gateway again.
    await control(second.url, 'POST', '/reset')
    expect(await control(second.url, 'GET', '/gateway')).toEqual({
      gateway: 'haproxy',
      readTimeoutMs: 60_000,
    })
    await kill(second)
  })
})
