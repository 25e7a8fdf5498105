import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { matchers } from '../../src/matchers/matchers.ts'
import {
  IdentifyApiMockContainer,
  type StartedIdentifyApiMockContainer,
} from '../../src/testcontainers/identify-api-mock-container.ts'
import { engine, image, noContainers } from '../support/container.ts'
import { freePort } from '../support/free-port.ts'

expect.extend(matchers)

/**
 * `identify-api-mock/testcontainers` against the image, through the engine's Docker-compatible
 * API (`DOCKER_HOST`; `.ci/run` points it at podman's socket). No registry is reachable there, so
 * Ryuk (Testcontainers' reaper, an image of its own) is off: each test stops its container.
 */
const skipped =
  noContainers ??
  (process.env.DOCKER_HOST === undefined
    ? 'no DOCKER_HOST: point it at a Docker-compatible socket (podman system service)'
    : undefined)

vi.setConfig({ testTimeout: 120_000 })
const dir = mkdtempSync(join(tmpdir(), 'identify-api-mock-testcontainers-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const identify = (mock: StartedIdentifyApiMockContainer, apiKey: string, orgId: string) =>
  fetch(`${mock.getBaseUrl()}/api/v1/users/identify`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id: 'left', orgId }),
  })

const data = {
  organisations: [{ orgId: 'acme', apiKeys: ['test-key'] }],
  users: [{ orgId: 'acme', id: 'left', registrationStatus: 'archived' as const }],
}

describe.skipIf(skipped !== undefined)(
  `identify-api-mock/testcontainers${skipped ? ` (skipped: ${skipped})` : ''}`,
  () => {
    it('starts with a data object, options and a control token; hands out the URL, the keys and a client', async () => {
      const mock = await new IdentifyApiMockContainer(image)
        .withData(data)
        .withOptions({ seededOrganisations: 0, strictUserGroups: true })
        .withControlToken('ctl-token')
        .start()
      try {
        expect(mock.getCredentials()).toEqual([
          { orgId: 'acme', name: 'acme', apiKeys: ['test-key'] },
        ])
        const answer = await identify(mock, mock.getApiKey('acme'), 'acme')
        expect((await answer.json()).data.registrationStatus).toBe('archived')
        // The control token guards /__mock; the client sends it.
        expect((await fetch(`${mock.getBaseUrl()}/__mock/state`)).status).toBe(401)
        const tenant = await mock.getClient().organisations.create()
        await tenant.failNext('identify', { status: 500 })
        expect((await identify(mock, tenant.apiKey, tenant.orgId)).status).toBe(500)
        await expect(tenant).toHaveIdentified({ id: 'left' }, { status: 500, times: 1 })
        // Snapshots through the module's client, as through connectMockApi.
        await tenant.saveSnapshot('before')
        await tenant.putUser('later', { registrationStatus: 'archived' })
        await tenant.restoreSnapshot('before')
        await expect(tenant.getUser('later')).rejects.toMatchObject({ status: 404 })
        expect(await tenant.snapshots()).toEqual([expect.objectContaining({ name: 'before' })])
      } finally {
        await mock.stop()
      }
    })

    it('refuses an image the engine lacks in one line naming buildImage() and the tag, pulling nothing', async () => {
      const missing = `identify-api-mock-missing-${process.pid}`
      const refusal = await new IdentifyApiMockContainer(missing).start().then(
        () => new Error('started'),
        (error: Error) => error,
      )
      expect(refusal.message).toBe(
        `identify-api-mock: the engine has no image ${missing}:latest: build it first with await IdentifyApiMockContainer.buildImage('${missing}:latest'), or docker build -t ${missing}:latest . in a clone`,
      )
      // The container guide shows the line as the default image's start gives it.
      const guide = readFileSync(new URL('../../docs/guides/container.md', import.meta.url), 'utf8')
      expect(guide).toContain(`\n${refusal.message.replaceAll(missing, 'identify-api-mock')}\n`)
    })

    it(`hands out the base URL as the engine gives it (${engine}), and on a pinned host port`, async () => {
      const port = await freePort()
      const [free, pinned] = await Promise.all([
        new IdentifyApiMockContainer(image).start(),
        new IdentifyApiMockContainer(image)
          .withExposedPorts({ container: 4010, host: port })
          .start(),
      ])
      try {
        // Testcontainers' host for this engine, as it is: podman's socket gives its network's gateway.
        console.log(`${engine}: getBaseUrl() ${free.getBaseUrl()}`)
        expect(free.getBaseUrl()).toBe(`http://${free.getHost()}:${free.getMappedPort(4010)}`)
        expect(pinned.getBaseUrl()).toBe(`http://${pinned.getHost()}:${port}`)
        for (const mock of [free, pinned]) {
          expect((await fetch(`${mock.getBaseUrl()}/__mock/health`)).status).toBe(200)
        }
      } finally {
        await Promise.all([free.stop(), pinned.stop()])
      }
    })

    it('gives the failures a test arms through its client, true to what it stored, at the latency asked, and counts what the client met', async () => {
      const mock = await new IdentifyApiMockContainer(image)
        .withOptions({ seededOrganisations: 0, latency: { fixedMs: 40 } })
        .start()
      try {
        const tenant = await mock.getClient().organisations.create({
          users: [{ id: 'left', registrationStatus: 'registered' }],
        })
        const remove = (timeoutMs = 10_000) =>
          fetch(`${mock.getBaseUrl()}/api/v1/users/${tenant.orgId}/left`, {
            method: 'DELETE',
            headers: { authorization: `Bearer ${tenant.apiKey}` },
            signal: AbortSignal.timeout(timeoutMs),
          }).then(
            async (response) => `${response.status} ${await response.text()}`,
            (error: Error) => error.name,
          )
        await tenant.failNext('delete-hang')
        expect(await remove(1000)).toBe('TimeoutError')
        await tenant.failNext('delete-gateway-502')
        expect(await remove()).toMatch(/^502 <!doctype html>/)
        await tenant.failNext('delete-reset-applied')
        expect(await remove()).toBe('TypeError')
        expect(await remove()).toBe('404 {"code":404,"message":"User not found"}')
        const calls = await tenant.calls('delete')
        expect(
          calls.map((c) => [c.status, c.failure?.kind ?? null, c.failure?.applied ?? null]),
        ).toEqual([
          [0, 'hang', false],
          [502, 'gateway', false],
          [200, 'reset', true],
          [404, null, null],
        ])
        const delays = (await tenant.requests()).map((entry) => entry.delayMs)
        expect(delays).toEqual([40 + 30_000, 40, 40, 40])
        // What the tenant's client met: the failures, and the 404 of the retry, not the 200s lost.
        const met = (await tenant.coverage()).items.filter((item) => item.count > 0)
        expect(met.map((item) => item.id)).toEqual([
          'delete.404',
          'failure.delete-reset-applied',
          'failure.delete-hang',
          'failure.delete-gateway-502',
        ])
      } finally {
        await mock.stop()
      }
    })

    it('starts with a data file given by its path', async () => {
      const path = join(dir, 'data.json')
      writeFileSync(path, JSON.stringify(data), { mode: 0o600 })
      const mock = await new IdentifyApiMockContainer(image).withData(path).start()
      try {
        expect(mock.getCredentials().map((c) => c.orgId)).toEqual(['org-1', 'org-2', 'acme'])
        expect((await identify(mock, 'test-key', 'acme')).status).toBe(200)
      } finally {
        await mock.stop()
      }
    })
  },
)
