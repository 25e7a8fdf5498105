import { execFile, spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectMockApi, MockApiClientError } from '../../src/client/connect-mock-api.ts'
import { type RunningServer, startServer } from '../../src/server/server.ts'
import { isMockHealthText } from '../../src/testcontainers/identify-api-mock-container.ts'
import { repoRoot } from '../support/docs.ts'
import { mockHealth } from '../support/mock-health.ts'

/**
 * Every readiness recipe the package gives (the image's `HEALTHCHECK`, which the compose file
 * declares as it is; the README's `curl` line; `connectMockApi(url).ready`; the Testcontainers
 * module's wait; the Python example's `wait_for_mock`) passes against the mock and fails against
 * another server on the port that answers 200 `{"status":"ok"}` to everything, as the mock's health
 * check did before it named the mock.
 */
const run = promisify(execFile)
const node26 = join(repoRoot, 'node_modules/node/bin/node')
const exitCodeOf = (file: string, args: string[], env: NodeJS.ProcessEnv = {}, cwd = repoRoot) =>
  run(file, args, { cwd, env: { ...process.env, ...env }, timeout: 60_000 }).then(
    () => 0,
    (error: { code: number }) => error.code,
  )

/** The command of the Dockerfile's `HEALTHCHECK … CMD [...]`. */
const [, ...healthCheck] = JSON.parse(
  /^ {2}CMD (\[.*\])$/m.exec(readFileSync(join(repoRoot, 'Dockerfile'), 'utf8'))?.[1] ?? '[]',
) as string[]
/** The README's readiness line. */
const curlLine =
  /`(curl -fsS http:\/\/127\.0\.0\.1:4010\/__mock\/health [^`]+)`/.exec(
    readFileSync(join(repoRoot, 'README.md'), 'utf8'),
  )?.[1] ?? ''
const python = spawnSync('python3', ['-c', 'import pytest']).status === 0 ? 'python3' : undefined

let mock: RunningServer
let stranger: Server
let strangerUrl = ''
const portOf = (url: string) => new URL(url).port

beforeAll(async () => {
  mock = await startServer({ port: 0 })
  stranger = createServer((_, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}')
  })
  await new Promise<void>((resolve) => stranger.listen(0, '127.0.0.1', resolve))
  strangerUrl = `http://127.0.0.1:${(stranger.address() as AddressInfo).port}`
})
afterAll(async () => {
  await mock.close()
  await new Promise((resolve) => stranger.close(resolve))
})

describe('the health answer', () => {
  it('names the mock, its version and this instance, and differs from another instance', async () => {
    const health = await (await fetch(`${mock.url}/__mock/health`)).json()
    expect(health).toEqual(mockHealth(mock.core.instanceId))
    const other = await startServer({ port: 0 })
    try {
      const its = await (await fetch(`${other.url}/__mock/health`)).json()
      expect(its).toEqual(mockHealth())
      expect(its.instanceId).not.toBe(health.instanceId)
    } finally {
      await other.close()
    }
  })
})

describe('the readiness recipes fail against another server on the port', () => {
  it("the image's HEALTHCHECK (and the compose file's, the same command)", async () => {
    expect(healthCheck.slice(0, 1)).toEqual(['-e'])
    const check = (url: string) =>
      exitCodeOf(node26, healthCheck, { IDENTIFY_API_MOCK_PORT: portOf(url) })
    expect(await check(mock.url)).toBe(0)
    expect(await check(strangerUrl)).toBe(1)
  }, 120_000)

  it("the README's curl line", async () => {
    expect(curlLine).toContain('grep -q')
    const check = (url: string) =>
      exitCodeOf('sh', ['-c', curlLine.replace('http://127.0.0.1:4010', url)])
    expect(await check(mock.url)).toBe(0)
    expect(await check(strangerUrl)).not.toBe(0)
  }, 120_000)

  it('connectMockApi(url).ready', async () => {
    await expect(connectMockApi(mock.url).ready).resolves.toBeUndefined()
    await expect(connectMockApi(strangerUrl).ready).rejects.toThrow(
      new MockApiClientError(
        'invalid-answer',
        `GET ${strangerUrl}/__mock/health answered 200 with a body that is not the endpoint's: name: Invalid input: expected "identify-api-mock"; version: Invalid input: expected string, received undefined; instanceId: Invalid input: expected string, received undefined`,
      ),
    )
  })

  it("the Testcontainers module's wait strategy", async () => {
    expect(isMockHealthText(await (await fetch(`${mock.url}/__mock/health`)).text())).toBe(true)
    expect(isMockHealthText(await (await fetch(`${strangerUrl}/__mock/health`)).text())).toBe(false)
    expect(isMockHealthText('<html>ok</html>')).toBe(false)
  })

  it.skipIf(python === undefined)(
    `the Python example's wait_for_mock${python ? '' : ' (skipped: no python3 with pytest)'}`,
    async () => {
      const check = (url: string) =>
        run(
          python as string,
          ['-c', `import conftest; conftest.wait_for_mock(${JSON.stringify(url)}, 1)`],
          {
            cwd: join(repoRoot, 'examples/python-backend'),
            env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
          },
        ).then(
          () => ({ code: 0, stderr: '' }),
          (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
        )
      expect(await check(mock.url)).toEqual({ code: 0, stderr: '' })
      const refused = await check(strangerUrl)
      expect(refused.code).toBe(1)
      expect(refused.stderr).toContain(
        `RuntimeError: ${strangerUrl} is not identify-api-mock after 1 s: {"status": "ok"}`,
      )
    },
    120_000,
  )
})
