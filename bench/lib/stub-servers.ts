import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { answersWithin, freePort, repoRoot, send } from './processes.ts'

/** A stub server of another project, answering one fixed identify answer. */
export interface StubServer {
  url: string
  /** Its process: what `cpuSecondsOf` reads. */
  pid: number
  stop(): void
}

/** Why a stub server was not measured: one line for the bench's notes. */
export type Unavailable = { unavailable: string }

const identifyPath = '/api/v1/users/identify'
const require = createRequire(join(repoRoot, 'package.json'))

/**
 * WireMock standalone (the jar the npm `wiremock` package ships) with one stub answering `body`
 * (JSON) to `POST /api/v1/users/identify`, request logging and the request journal off (it would
 * keep every request); needs `java` on the `PATH`.
 */
export async function startWireMock(body: string): Promise<StubServer | Unavailable> {
  if (spawnSync('java', ['-version']).error) return { unavailable: 'no java on the PATH' }
  const folder = join(dirname(require.resolve('wiremock/package.json')), 'build')
  const jar = readdirSync(folder).find((name) => name.endsWith('.jar'))
  if (!jar) return { unavailable: `no jar in ${folder}` }
  const port = await freePort()
  // WireMock makes its `mappings` and `__files` folders under its root: a folder of its own, not
  // the directory the bench was run from.
  const root = mkdtempSync(join(tmpdir(), 'bench-wiremock-'))
  const child = spawn(
    'java',
    [
      '-jar',
      join(folder, jar),
      '--root-dir',
      root,
      '--port',
      String(port),
      '--bind-address',
      '127.0.0.1',
      '--disable-banner',
      '--disable-request-logging',
      '--no-request-journal',
    ],
    { stdio: 'ignore' },
  )
  const url = `http://127.0.0.1:${port}`
  if (!(await answersWithin(`${url}/__admin/health`, 60_000, () => running(child)))) {
    child.kill('SIGKILL')
    rmSync(root, { recursive: true, force: true })
    return { unavailable: 'WireMock did not start within 60 s' }
  }
  await postJson(`${url}/__admin/mappings`, {
    request: { method: 'POST', url: identifyPath },
    response: { status: 200, headers: { 'Content-Type': 'application/json' }, body },
  })
  const stop = () => {
    child.kill('SIGTERM')
    rmSync(root, { recursive: true, force: true })
  }
  return { url, pid: child.pid as number, stop }
}

/**
 * mountebank (the npm `mountebank` package) with one imposter holding one stub answering `body`
 * (JSON) to `POST /api/v1/users/identify`; its answers keep the connection open (mountebank
 * closes it by default, which would measure reconnections).
 */
export async function startMountebank(body: string): Promise<StubServer | Unavailable> {
  const [adminPort, port] = [await freePort(), await freePort()]
  const child = spawn(
    process.execPath,
    [
      require.resolve('mountebank/bin/mb'),
      '--port',
      String(adminPort),
      '--host',
      '127.0.0.1',
      '--nologfile',
      '--loglevel',
      'error',
    ],
    { stdio: 'ignore' },
  )
  const admin = `http://127.0.0.1:${adminPort}`
  if (!(await answersWithin(`${admin}/config`, 60_000, () => running(child)))) {
    child.kill('SIGKILL')
    return { unavailable: 'mountebank did not start within 60 s' }
  }
  await postJson(`${admin}/imposters`, {
    protocol: 'http',
    port,
    host: '127.0.0.1',
    stubs: [
      {
        predicates: [{ equals: { method: 'POST', path: identifyPath } }],
        responses: [
          {
            is: {
              statusCode: 200,
              headers: { 'Content-Type': 'application/json', Connection: 'keep-alive' },
              body,
            },
          },
        ],
      },
    ],
  })
  return { url: `http://127.0.0.1:${port}`, pid: child.pid as number, stop: () => child.kill() }
}

function running(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null
}

async function postJson(url: string, value: unknown): Promise<void> {
  const answer = await send({
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(value),
  })
  if (answer.status >= 300) throw new Error(`${url} answered ${answer.status}: ${answer.body}`)
}
