import { execFile } from 'node:child_process'
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { contextDockerfile, writePackageContext } from '../../src/testcontainers/image-context.ts'
import { cliPath } from '../support/cli-process.ts'
import {
  containers,
  engine,
  image,
  noContainers,
  type RunningContainer,
  startContainer,
} from '../support/container.ts'
import { codeBlocks } from '../support/docs.ts'
import { python, pythonExamplePassed } from '../support/python-example.ts'

/**
 * docs/guides/container.md as a reader follows it: the variables it names exist, the compose file's
 * mock answers the service that reaches it as `mock` and posts its webhooks to it as `tests`, and the
 * GitHub Actions job's service passes the Python example's tests (its webhook receivers included)
 * with the job's settings.
 */
vi.setConfig({ hookTimeout: 60_000, testTimeout: 120_000 })

const run = promisify(execFile)
const repo = fileURLToPath(new URL('../..', import.meta.url))
const guide = readFileSync(`${repo}docs/guides/container.md`, 'utf8')
const yamlBlocks = [...guide.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1] ?? '')
const [compose = '', actions = ''] = yamlBlocks
/** The command of the Dockerfile's `HEALTHCHECK … CMD [...]`. */
const healthCommand: string[] = JSON.parse(
  /^ {2}CMD (\[.*\])$/m.exec(readFileSync(`${repo}Dockerfile`, 'utf8'))?.[1] ?? 'null',
)

/**
 * The `KEY: value` entries of the first mapping named `key` after the line `after` in a YAML
 * block: the few lines of the guide's files that a test gives a container.
 */
function mapping(block: string, after: string, key: string): Record<string, string> {
  const lines = block.split('\n')
  const from = lines.findIndex((line) => line.trim() === after)
  const start = lines.findIndex((line, i) => i > from && line.trim() === `${key}:`)
  const indent = (line: string) => line.length - line.trimStart().length
  const entries: Record<string, string> = {}
  for (const line of lines.slice(start + 1)) {
    if (indent(line) <= indent(lines[start] ?? '')) break
    const [, name = '', value = ''] = line.trim().match(/^([\w.-]+): (.*)$/) ?? []
    entries[name] = value
  }
  return entries
}

describe('docs/guides/container.md', () => {
  it('names only variables that serve has', async () => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', cliPath, 'serve', '--help'])
    const known = new Set(stdout.match(/IDENTIFY_API_MOCK_[A-Z_]+/g))
    const named = new Set(guide.match(/IDENTIFY_API_MOCK_[A-Z_]+/g))
    expect(named.size).toBeGreaterThan(5)
    expect([...named].filter((name) => !known.has(name))).toEqual([])
  }, 30_000)

  it('has a compose file and a GitHub Actions job', () => {
    expect(yamlBlocks).toHaveLength(2)
    expect(mapping(compose, 'mock:', 'environment')).toMatchObject({
      IDENTIFY_API_MOCK_ALLOWED_HOST: 'mock',
    })
    expect(actions).toMatch(/^ {4}services:$/m)
  })

  it("declares in the compose file the Dockerfile's own health check, for an image built without it", () => {
    const declared = JSON.parse(mapping(compose, 'mock:', 'healthcheck').test ?? 'null')
    expect(declared).toEqual(['CMD', ...healthCommand])
    // Compose reads `$` as its own variables: the command must hold none to reach the container as is.
    expect(JSON.stringify(healthCommand)).not.toContain('$')
  })

  it('builds with podman in the format that keeps the health check, as .ci/run builds the image the tests run', () => {
    const documented = codeBlocks('docs/guides/container.md', '## Build and run', 'sh')
      .join('\n')
      .split('\n')
      .filter((line) => line.startsWith('podman build'))
    expect(documented).toEqual(['podman build --format docker -t identify-api-mock .'])
    const ci = readFileSync(`${repo}.ci/run`, 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('podman build'))
    expect(ci).toEqual([documented[0]?.replace('podman build', 'podman build --pull=never')])
  })
})

describe.skipIf(noContainers !== undefined)(
  `docs/guides/container.md with the image${noContainers ? ` (skipped: ${noContainers})` : ''}`,
  () => {
    it('compose: the mock answers a service that reaches it as mock, and only with its --allowed-host; it posts to the service as tests', async () => {
      const network = `identify-api-mock-guide-${process.pid}`
      await containers(['network', 'create', network])
      const mockEnv = mapping(compose, 'mock:', 'environment')
      // The tests service's URL, and the key and organisation the mock was given.
      const testsEnv = {
        ...mapping(compose, 'tests:', 'environment'),
        IDENTIFY_API_KEY: mockEnv.IDENTIFY_API_MOCK_API_KEY ?? '',
        IDENTIFY_ORG_ID: mockEnv.IDENTIFY_API_MOCK_ORG ?? '',
      }
      const started: string[] = []
      /** Starts the mock as `mock` on the network, with `env`. */
      const startMock = async (env: Record<string, string>) => {
        const id = await containers([
          'run',
          '-d',
          '--network',
          network,
          '--network-alias',
          'mock',
          ...Object.entries(env).flatMap(([name, value]) => ['-e', `${name}=${value}`]),
          image as string,
        ])
        started.push(id)
        return id
      }
      /** Identifies a user from another container on the network, as the tests service would. */
      const identifyFromService = () =>
        containers([
          'run',
          '--rm',
          '--network',
          network,
          '--entrypoint',
          'node',
          ...Object.entries(testsEnv).flatMap(([name, value]) => ['-e', `${name}=${value}`]),
          image as string,
          '-e',
          `const { IDENTIFY_API_URL: url, IDENTIFY_API_KEY: key, IDENTIFY_ORG_ID: orgId } = process.env
          const call = async () => (await fetch(url + '/api/v1/users/identify', { method: 'POST',
            headers: { authorization: 'Bearer ' + key, 'content-type': 'application/json' },
            body: JSON.stringify({ id: 'from-a-service', orgId }) }).catch(() => ({ status: 0 }))).status
          let status = await call()
          for (let i = 0; i < 150 && status === 0; i++) status = await new Promise((r) => setTimeout(r, 200)).then(call)
          console.log(status)`,
        ])
      /**
       * From the tests service (`tests` on the network), a receiver of a tenant's own registered at
       * `WEBHOOK_RECEIVER_HOST`, as the Python example's are: the svix-ids it got.
       */
      const receiveInService = async () =>
        JSON.parse(
          await containers([
            'run',
            '--rm',
            '--network',
            network,
            '--network-alias',
            'tests',
            '--entrypoint',
            'node',
            ...Object.entries(testsEnv).flatMap(([name, value]) => ['-e', `${name}=${value}`]),
            image as string,
            '-e',
            `const { createServer } = await import('node:http')
            const { IDENTIFY_API_URL: url, WEBHOOK_RECEIVER_HOST: host } = process.env
            const post = async (path, body) => (await fetch(url + path, { method: 'POST',
              headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json()
            const got = []
            const receiver = createServer((request, response) => {
              got.push(request.headers['svix-id'])
              request.resume().on('end', () => response.end())
            })
            await new Promise((resolve) => receiver.listen(0, '0.0.0.0', resolve))
            const { orgId } = await post('/__mock/organisations', { users: [{ id: 'ada', registrationStatus: 'registered' }] })
            await post('/__mock/webhooks', { url: 'http://' + host + ':' + receiver.address().port + '/webhooks', orgId })
            const { id } = await post('/__mock/events', { type: 'notifications.sent', orgId, id: 'ada' })
            for (let i = 0; i < 300 && got.length === 0; i++) await new Promise((r) => setTimeout(r, 100))
            receiver.close()
            console.log(JSON.stringify({ sent: id, got }))`,
          ]),
        ) as { sent: string; got: string[] }
      try {
        await startMock(mockEnv)
        expect(await identifyFromService()).toBe('200')
        expect(testsEnv).toMatchObject({ WEBHOOK_RECEIVER_HOST: 'tests' })
        const { sent, got } = await receiveInService()
        expect(got).toEqual([sent])
        await containers(['rm', '-f', ...started.splice(0)])
        const { IDENTIFY_API_MOCK_ALLOWED_HOST: _, ...withoutAllowedHost } = mockEnv
        await startMock(withoutAllowedHost)
        expect(await identifyFromService()).toBe('403')
      } finally {
        if (started.length > 0) await containers(['rm', '-f', ...started]).catch(() => {})
        await containers(['network', 'rm', '-f', network]).catch(() => {})
      }
    })

    it.skipIf(engine !== 'podman')(
      "podman's default format: the image has no HEALTHCHECK, and the command the compose file declares passes",
      async () => {
        // The run stage of the Dockerfile over the repository's build, as buildImage() builds it.
        const context = mkdtempSync(join(tmpdir(), 'identify-api-mock-oci-'))
        const tag = `identify-api-mock-oci-${process.pid}`
        writePackageContext(context)
        let id = ''
        try {
          const dockerfile = join(context, contextDockerfile)
          await containers(['build', '--pull=never', '-f', dockerfile, '-t', tag, context])
          const inspect = ['image', 'inspect', '--format', '{{.Config.Healthcheck}}', tag]
          expect(await containers(inspect)).toBe('<nil>')
          id = await containers(['run', '-d', '--health-cmd', JSON.stringify(healthCommand), tag])
          const check = () =>
            containers(['healthcheck', 'run', id]).then(
              () => 'healthy',
              () => 'not yet',
            )
          await expect.poll(check, { timeout: 30_000, interval: 500 }).toBe('healthy')
        } finally {
          if (id) await containers(['rm', '-f', id]).catch(() => {})
          await containers(['rmi', '--force', tag]).catch(() => {})
          rmSync(context, { recursive: true, force: true })
        }
      },
    )

    it('data files: loads a mounted file readable by uid 1000, and refuses a 0600 one in one line', async () => {
      const block = guide.slice(guide.indexOf('## Data files'))
      expect(block).toContain('-v "$PWD/data.json:/mock/data.json:ro"')
      expect(block).toContain('-e IDENTIFY_API_MOCK_DATA=/mock/data.json')
      const dir = mkdtempSync(join(tmpdir(), 'identify-api-mock-data-'))
      try {
        const file = join(dir, 'data.json')
        const data = { organisations: [{ orgId: 'acme', apiKeys: ['acme-key'] }], users: [] }
        writeFileSync(file, JSON.stringify(data), { mode: 0o644 })
        const env = { IDENTIFY_API_MOCK_DATA: '/mock/data.json' }
        const mounted = await startContainer([], { env, volume: `${file}:/mock/data.json:ro` })
        try {
          expect(mounted.credentials.map((c) => c.orgId)).toContain('acme')
        } finally {
          await mounted.stop()
        }
        chmodSync(file, 0o600)
        const refused = await run(engine, [
          'run',
          '--rm',
          '-v',
          `${file}:/mock/data.json:ro`,
          '-e',
          'IDENTIFY_API_MOCK_DATA=/mock/data.json',
          image as string,
        ]).then(
          () => ({ code: 0, stderr: '' }),
          (error: { code: number; stderr: string }) => error,
        )
        expect(refused.code).toBe(1)
        // The engine may add log lines of its own; the server's is one.
        const lines = refused.stderr
          .split('\n')
          .filter((line) => line.startsWith('identify-api-mock'))
        expect(lines).toEqual([
          expect.stringMatching(/^identify-api-mock: \/mock\/data\.json: cannot be read: /),
        ])
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    })

    it('lists each flag with its variable for docker run IMAGE --help', async () => {
      const help = await containers(['run', '--rm', image as string, '--help'])
      expect(help).toMatch(/--seed <seed>[\s\S]*env:\s+IDENTIFY_API_MOCK_SEED\)/)
      expect(help).toMatch(/--allowed-host <host>[\s\S]*env:\s+IDENTIFY_API_MOCK_ALLOWED_HOST\)/)
    })

    describe('GitHub Actions: the Python example against the service', () => {
      // How the service reaches the runner's webhook receivers: Docker's name for the host, given
      // by the job's option; podman names the host host.containers.internal itself (and podman 4
      // has no host-gateway).
      const options = /^ {8}options: (.*)$/m.exec(actions)?.[1] ?? ''
      const receiverHost = engine === 'podman' ? 'host.containers.internal' : 'host.docker.internal'
      let service: RunningContainer
      beforeAll(async () => {
        service = await startContainer([], {
          env: mapping(actions, 'mock:', 'env'),
          options: engine === 'podman' ? [] : options.split(' '),
        })
      })
      afterAll(async () => {
        await service?.stop()
      })

      it.skipIf(python === undefined)(
        'passes with the job’s settings, in four workers',
        async () => {
          const env = mapping(actions, 'working-directory: examples/python-backend', 'env')
          expect(env.IDENTIFY_API_URL).toBe('http://127.0.0.1:4010')
          expect(options).toBe('--add-host=host.docker.internal:host-gateway')
          expect(env.WEBHOOK_RECEIVER_HOST).toBe('host.docker.internal')
          expect(actions).toContain('python3 -m pytest -n 4')
          const { stdout } = await run(
            python as string,
            ['-m', 'pytest', '-n', '4', '-q', '-p', 'no:cacheprovider'],
            {
              cwd: `${repo}examples/python-backend`,
              env: {
                ...process.env,
                ...env,
                IDENTIFY_API_URL: service.url,
                WEBHOOK_RECEIVER_HOST: receiverHost,
                PYTHONDONTWRITEBYTECODE: '1',
              },
            },
          )
          expect(stdout).toMatch(pythonExamplePassed)
        },
      )
    })
  },
)
