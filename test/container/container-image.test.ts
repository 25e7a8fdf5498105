import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createMockApi } from '../../src/root/index.ts'
import {
  containers,
  engine,
  image,
  noContainers,
  type RunningContainer,
  startContainer,
} from '../support/container.ts'
import { sendRaw } from '../support/http-client.ts'

/**
 * The container image (`IDENTIFY_TEST_IMAGE`, built from the Dockerfile) as a CI service
 * runs it: what it adds to its base, its user, the `Host` rule on `0.0.0.0`, flags appended to
 * `docker run IMAGE` and as variables, its health check, a `--state-file` on a `/data` volume, a
 * `docker run` that a script stops, and `docker stop` (here podman's) ending it at once rather than
 * after its 10 s kill.
 */

// Starting a container takes seconds, more on a busy machine.
vi.setConfig({ hookTimeout: 60_000, testTimeout: 60_000 })

/** The base image, as the Dockerfile's last `FROM` names it. */
const base = [
  ...readFileSync(new URL('../../Dockerfile', import.meta.url), 'utf8').matchAll(/^FROM (\S+)/gm),
].at(-1)?.[1]

const health = async (container: RunningContainer, host: string) => {
  const answer = await sendRaw(container.url, {
    method: 'GET',
    target: '/__mock/health',
    headers: { host },
  })
  return answer.status
}

if (noContainers) {
  describe.skip(`the container image (skipped: ${noContainers})`, () => {
    it('runs the image as a CI service does', () => {})
  })
} else {
  describe(`the container image ${image}`, () => {
    let plain: RunningContainer
    beforeAll(async () => {
      plain = await startContainer()
    })
    afterAll(async () => {
      await containers(['rm', '-f', plain.id]).catch(() => {})
    })

    it('adds at most 40 MB to its base', async () => {
      const size = async (name: string) =>
        Number(await containers(['image', 'inspect', '--format', '{{.Size}}', name]))
      const [own, of] = [await size(image as string), await size(base as string)]
      const added = own - of
      console.log(
        `image ${image}: ${(own / 1e6).toFixed(1)} MB, its base ${base}: ${(of / 1e6).toFixed(1)} MB, added ${(added / 1e6).toFixed(1)} MB`,
      )
      expect(added).toBeLessThanOrEqual(40e6)
    })

    it('runs the server as PID 1, not as root, and answers /__mock/health', async () => {
      const status = await containers(['exec', plain.id, 'cat', '/proc/1/status'])
      const uid = Number(status.match(/^Uid:\s+(\d+)/m)?.[1])
      expect(uid).not.toBe(0)
      expect(Number.isInteger(uid)).toBe(true)
      expect(await health(plain, `127.0.0.1:${plain.port}`)).toBe(200)
      // The image's HEALTHCHECK reaches it too.
      await expect(containers(['healthcheck', 'run', plain.id])).resolves.toBeDefined()
    })

    it('passes its HEALTHCHECK with a control token set and with the controls off', async () => {
      // Before, /__mock/health answered 401 and 404 there: compose's service_healthy never came.
      const guarded = await startContainer(['--control-token', 'ctl-token'])
      const off = await startContainer([], { env: { IDENTIFY_API_MOCK_NO_CONTROL: '1' } })
      try {
        for (const container of [guarded, off]) {
          await expect(containers(['healthcheck', 'run', container.id])).resolves.toBeDefined()
        }
        const state = await fetch(`${guarded.url}/__mock/state`)
        expect(state.status).toBe(401)
      } finally {
        await Promise.all([guarded.stop(), off.stop()])
      }
    })

    it('refuses a rebinding name on 0.0.0.0, and answers localhost and IP literals', async () => {
      expect(await health(plain, 'rebind.example')).toBe(403)
      expect(await health(plain, 'mock:4010')).toBe(403)
      expect(await health(plain, `localhost:${plain.port}`)).toBe(200)
      expect(await health(plain, `127.0.0.1:${plain.port}`)).toBe(200)
    })

    it('takes serve flags appended to docker run IMAGE, and IDENTIFY_API_MOCK_ variables', async () => {
      const flags = await startContainer(['--allowed-host', 'mock', '--seed', '7'])
      const variables = await startContainer([], {
        env: { IDENTIFY_API_MOCK_ALLOWED_HOST: 'mock,api', IDENTIFY_API_MOCK_SEED: '7' },
      })
      try {
        const seeded = (await createMockApi({ seed: 7 })).credentials
        for (const container of [flags, variables]) {
          expect(container.credentials).toEqual(seeded)
          expect(await health(container, 'mock:4010')).toBe(200)
          expect(await health(container, 'rebind.example')).toBe(403)
        }
        expect(await health(variables, 'api')).toBe(200)
        expect(await health(flags, 'api')).toBe(403)
      } finally {
        await Promise.all([flags.stop(), variables.stop()])
      }
    })

    it('keeps a --state-file on a /data volume across containers', async () => {
      const volume = `identify-api-mock-test-${process.pid}`
      const withVolume = () =>
        startContainer(['--state-file', '/data/state.sqlite'], { volume: `${volume}:/data` })
      try {
        const first = await withVolume()
        const [org] = first.credentials
        const identify = await fetch(`${first.url}/api/v1/users/identify`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${org?.apiKeys[0]}`,
            'content-type': 'application/json',
          },
          body: JSON.stringify({ id: 'kept', orgId: org?.orgId }),
        })
        expect(identify.status).toBe(200)
        await first.stop()
        const second = await withVolume()
        try {
          const user = await fetch(`${second.url}/__mock/user?orgId=${org?.orgId}&id=kept`)
          expect(user.status).toBe(200)
        } finally {
          await second.stop()
        }
      } finally {
        await containers(['volume', 'rm', '-f', volume]).catch(() => {})
      }
    })

    for (const stop of ['SIGTERM to it', 'SIGINT to its group'] as const) {
      it(`stops within 3 s when a script started it with docker run, on ${stop}`, async () => {
        const name = `identify-api-mock-test-${process.pid}-${stop.slice(0, 6)}`
        const child = spawn(
          engine,
          ['run', '--rm', '--name', name, '-p', '127.0.0.1::4010', image as string, '--json'],
          { detached: true, stdio: ['ignore', 'pipe', 'ignore'] },
        )
        try {
          await new Promise((resolve) => child.stdout.once('data', resolve))
          const published = await containers(['port', name, '4010/tcp'])
          const url = `http://${published.split('\n')[0]}`
          const health = () =>
            fetch(`${url}/__mock/health`).then(
              (res) => res.status,
              () => 'closed',
            )
          expect(await health()).toBe(200)
          if (stop === 'SIGTERM to it') child.kill('SIGTERM')
          else process.kill(-(child.pid as number), 'SIGINT')
          const deadline = Date.now() + 3000
          while ((await health()) !== 'closed' && Date.now() < deadline) {
            await new Promise((resolve) => setTimeout(resolve, 50))
          }
          expect(await health()).toBe('closed')
        } finally {
          await containers(['rm', '-f', name]).catch(() => {})
        }
      })
    }

    it('stops at once on docker stop (SIGTERM), well before the 10 s kill', async () => {
      // Given 3 s before its SIGKILL, the server has exited on the SIGTERM by itself (code 0, not
      // 137). What `stop` takes beyond that is the engine's own clean-up, printed.
      const { tookMs, exitCode } = await plain.stop(3)
      console.log(`${image}: stop took ${Math.round(tookMs)} ms`)
      expect(exitCode).toBe(0)
      expect(tookMs).toBeLessThan(10_000)
    })
  })
}
