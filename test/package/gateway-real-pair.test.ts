import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { connectMockApi, type Tenant } from '../../src/client/connect-mock-api.ts'
import type { FailureKindName } from '../../src/core/failure-kinds.ts'
import { repoRoot } from '../support/docs.ts'
import { freePort } from '../support/free-port.ts'

/**
 * The mock under `nginx` and `haproxy` held against the real ones: Debian's nginx 1.22 and
 * haproxy 2.6 on loopback in front of a small upstream that fails on purpose the way each kind
 * describes, and beside them the mock as a user installs it: packed (`npm pack`, once, here),
 * installed from the tarball into a scratch project and started with its bin,
 * `identify-api-mock serve --gateway nginx --gateway-read-timeout 1000`. A raw socket client meets
 * the same bytes (the `Date` aside) and the same end of the connection; Node's `fetch` the same
 * status and reason phrase, or the same error; `axios` with `axios-retry`, `got` and `ky`, each
 * retrying POST as a user turns it on (installed in the same scratch project), and Python's
 * `requests` with `urllib3.Retry`, identifying (a POST) through nginx, the same error class, as
 * many attempts and, within 20 %, the same time (against nginx, for a hang: `AxiosError 504`
 * three times, a second each; in Python `RetryError 504`, and `ChunkedEncodingError` for a body
 * cut).
 * Where the gateways are not installed it is skipped (`.ci/run` installs them, and `requests`);
 * where the package or the clients cannot be installed, the tests that need them fail.
 */

const nginxBin = '/usr/sbin/nginx'
const haproxyBin = '/usr/sbin/haproxy'
const installed = existsSync(nginxBin) && existsSync(haproxyBin)
const why =
  'skipped: nginx and haproxy are not installed (apt-get install nginx haproxy; .ci/run does)'

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 })

/** The read timeout both sides are given. */
const readTimeoutMs = 1000

/** The mock's delete answer: what the upstream sends on every route, in the same pieces. */
const body = '{"id":"ada","deleted":true}'

/** An upstream failing as `?kind=` says: the API's server, failing on purpose. */
function failingUpstream(): Server {
  return createServer((req, res) => {
    const kind = new URL(req.url ?? '/', 'http://upstream').searchParams.get('kind')
    switch (kind) {
      case 'reset':
        req.socket.resetAndDestroy()
        return
      case 'empty':
        req.socket.end()
        return
      case 'hang':
        // Held longer than the gateway's read timeout, then dropped.
        setTimeout(() => req.socket.destroy(), readTimeoutMs * 3)
        return
      case 'slow': {
        // The head and a first piece, then a pause past the read timeout.
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length })
        res.write(body.slice(0, 4))
        setTimeout(() => res.end(body.slice(4)), readTimeoutMs * 3)
        return
      }
      default:
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(body)
    }
  })
}

/** Runs `command` until the end of the file's tests. */
function run(command: string, args: string[]): ChildProcess {
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] })
  child.stderr?.setEncoding('utf8')
  return child
}

/** Waits until something listens on `port`. */
async function listening(port: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1')
      socket.once('connect', () => {
        socket.destroy()
        resolve(true)
      })
      socket.once('error', () => resolve(false))
    })
    if (up) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`nothing listens on ${port}`)
}

/** What a raw client met: the bytes (each `Date` value as `DATE`), and whether the connection was closed. */
interface Met {
  bytes: string
  closed: boolean
}

/**
 * Sends `request` to `port` and reads until the connection closes or a second passes with no byte
 * (after the first, or after the read timeout and more before it).
 */
function exchange(port: number, request: string): Promise<Met> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    let bytes = ''
    let timer = setTimeout(done, readTimeoutMs * 4)
    function done(closed = false) {
      clearTimeout(timer)
      socket.destroy()
      resolve({ bytes: bytes.replace(/^Date: .*$/gim, 'Date: DATE'), closed })
    }
    socket.on('data', (chunk: Buffer) => {
      bytes += chunk.toString('latin1')
      clearTimeout(timer)
      timer = setTimeout(done, 1000)
    })
    socket.on('error', () => {})
    socket.on('close', () => done(true))
    socket.write(request)
  })
}

/** What Node's fetch met: a status and reason phrase with the body's first bytes, or an error. */
async function fetched(url: string, init: RequestInit): Promise<string> {
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(readTimeoutMs * 5) })
    const text = await response.text().catch((error: Error) => `body ${error.name}`)
    return `${response.status} ${response.statusText} ${text.slice(0, 60)}`
  } catch (error) {
    return `${(error as Error).name}`
  }
}

/** The clients held against both, each with its retries, as a user's code calls them. */
const clientNames = ['axios', 'got', 'ky'] as const
type ClientName = (typeof clientNames)[number]

/**
 * A script that identifies (a POST, as the API's identify is) with one client and its retries
 * (two, 50 ms apart at most; each client's POST retries turned on, as none retries a POST by
 * default), and prints what the caller met: the error's class and status or code, how many
 * attempts it made, and the milliseconds from the call to its end.
 */
const clientScript = `
import axios from 'axios'
import axiosRetry from 'axios-retry'
import got from 'got'
import ky from 'ky'
const [name, url, authorization = '', orgId = ''] = process.argv.slice(2)
const headers = authorization ? { authorization } : {}
const json = { id: 'ada', orgId: orgId || 'org', data: { firstName: 'Ada' } }
let attempts = 1
const start = performance.now()
const print = (outcome) =>
  console.log(JSON.stringify({ outcome, attempts, ms: Math.round(performance.now() - start) }))
try {
  if (name === 'axios') {
    const client = axios.create({ timeout: 10000 })
    // Network errors and 5xx, whatever the method.
    axiosRetry(client, {
      retries: 2,
      retryDelay: () => 50,
      retryCondition: axiosRetry.isRetryableError,
      onRetry: () => attempts++,
    })
    const answer = await client.post(url, json, { headers })
    print(answer.status)
  } else if (name === 'got') {
    const answer = await got.post(url, {
      headers,
      json,
      timeout: { request: 10000 },
      retry: { limit: 2, backoffLimit: 50, methods: ['GET', 'PUT', 'HEAD', 'DELETE', 'OPTIONS', 'TRACE', 'POST'] },
      hooks: { beforeRetry: [() => attempts++] },
    })
    print(answer.statusCode)
  } else {
    const answer = await ky.post(url, {
      headers,
      json,
      timeout: 10000,
      retry: { limit: 2, backoffLimit: 50, methods: ['get', 'put', 'head', 'delete', 'options', 'trace', 'post'] },
      hooks: { beforeRetry: [() => { attempts++ }] },
    })
    print(answer.status)
  }
} catch (error) {
  print(error.name + ' ' + (error.response?.status ?? error.response?.statusCode ?? error.code ?? ''))
}
`

/**
 * Python's `requests` with `urllib3.Retry` (two retries, POST among the methods retried, and on
 * 502, 503 and 504 too), as the Python example's backend would call; prints as the script above.
 */
const pythonScript = `
import json, re, sys, time
import requests
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

attempts = 1

class Counted(Retry):
    def increment(self, *args, **kwargs):
        global attempts
        attempts += 1
        return super().increment(*args, **kwargs)

url = sys.argv[1]
headers = {'authorization': sys.argv[2]} if len(sys.argv) > 2 and sys.argv[2] else {}
org_id = sys.argv[3] if len(sys.argv) > 3 and sys.argv[3] else 'org'
session = requests.Session()
retry = Counted(
    total=2,
    backoff_factor=0.01,
    status_forcelist=[502, 503, 504],
    allowed_methods=frozenset(['GET', 'PUT', 'HEAD', 'DELETE', 'OPTIONS', 'TRACE', 'POST']),
)
session.mount('http://', HTTPAdapter(max_retries=retry))
start = time.monotonic()
try:
    outcome = session.post(
        url, json={'id': 'ada', 'orgId': org_id, 'data': {'firstName': 'Ada'}}, headers=headers, timeout=10
    ).status_code
except Exception as error:
    # The class, and the status a RetryError names ('too many 504 error responses').
    status = re.search(r'too many (\\d+) error responses', str(error))
    outcome = type(error).__name__ + (' ' + status.group(1) if status else '')
ms = round((time.monotonic() - start) * 1000)
print(json.dumps({'outcome': outcome, 'attempts': attempts, 'ms': ms}, separators=(',', ':')))
`

/** Whether Python's `requests` can be imported here. */
const hasRequests = spawnSync('python3', ['-c', 'import requests, urllib3']).status === 0

/** The repository's node (26): the packed bin and npm run on it, as in the other packed-package tests. */
const node26 = join(repoRoot, 'node_modules/node/bin/node')
const env = { ...process.env, PATH: `${dirname(node26)}:${process.env.PATH}` }
/** npm, from the shared cache where it can. */
const npm = (args: string[], cwd: string) =>
  promisify(execFile)(
    'npm',
    [...args, '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'],
    { cwd, env, maxBuffer: 1 << 26 },
  )

describe.skipIf(!installed)(
  `the packed mock behind a gateway, beside the real one (${installed ? 'nginx and haproxy found' : why})`,
  () => {
    let dir = ''
    let upstream: Server
    const children: ChildProcess[] = []
    const ports = { upstream: 0, nginx: 0, haproxy: 0 }
    /** The packed package's server, started by its bin. */
    let mockUrl = ''
    let nginx: Tenant
    let haproxy: Tenant

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'gateway-pair-'))
      // Packed once for this file, while the gateways start.
      const packed = npm(['pack', '--pack-destination', dir], repoRoot).then(({ stdout }) =>
        join(dir, stdout.trim().split('\n').at(-1) ?? ''),
      )
      ports.upstream = await freePort()
      ports.nginx = await freePort()
      ports.haproxy = await freePort()
      upstream = failingUpstream()
      await new Promise<void>((resolve) => upstream.listen(ports.upstream, '127.0.0.1', resolve))
      const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']
        .map((name) => `${name}_temp_path ${dir}/${name};`)
        .join(' ')
      writeFileSync(
        join(dir, 'nginx.conf'),
        `worker_processes 1; pid ${dir}/nginx.pid; error_log ${dir}/nginx-error.log;
events { worker_connections 64; }
http {
  access_log off; server_tokens off; ${temp}
  server {
    listen 127.0.0.1:${ports.nginx};
    proxy_read_timeout ${readTimeoutMs / 1000}s;
    proxy_next_upstream off;
    location / { proxy_pass http://127.0.0.1:${ports.upstream}; }
  }
}`,
      )
      writeFileSync(
        join(dir, 'haproxy.cfg'),
        `defaults
  mode http
  timeout connect 1s
  timeout client 30s
  timeout server ${readTimeoutMs}ms
frontend fe
  bind 127.0.0.1:${ports.haproxy}
  default_backend be
backend be
  server up 127.0.0.1:${ports.upstream}
`,
      )
      children.push(run(nginxBin, ['-c', join(dir, 'nginx.conf'), '-p', dir, '-g', 'daemon off;']))
      children.push(run(haproxyBin, ['-f', join(dir, 'haproxy.cfg'), '-db']))
      await listening(ports.nginx)
      await listening(ports.haproxy)
      // The package and the clients, in a scratch project as a user installs them.
      const project = join(dir, 'project')
      mkdirSync(project)
      writeFileSync(join(project, 'package.json'), '{"private":true,"type":"module"}')
      writeFileSync(join(project, 'client.mjs'), clientScript)
      writeFileSync(join(project, 'client.py'), pythonScript)
      await npm(['install', await packed, 'axios', 'axios-retry', 'got', 'ky'], project)
      // The mock as `serve` starts it, the whole mock behind nginx.
      const mock = spawn(
        join(project, 'node_modules/.bin/identify-api-mock'),
        [
          'serve',
          '--port',
          '0',
          '--json',
          '--gateway',
          'nginx',
          '--gateway-read-timeout',
          String(readTimeoutMs),
        ],
        { cwd: project, env, stdio: ['ignore', 'pipe', 'inherit'] },
      )
      children.push(mock)
      mockUrl = await new Promise<string>((resolve, reject) => {
        let out = ''
        mock.stdout?.on('data', (chunk: Buffer) => {
          out += chunk.toString()
          if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0] ?? '').url)
        })
        mock.once('exit', (code) => reject(new Error(`the packed bin exited with ${code}`)))
      })
      const client = connectMockApi(mockUrl)
      // An organisation of its own follows the mock's gateway: nginx, as `--gateway` set it.
      nginx = await client.organisations.create()
      expect(await nginx.gateway()).toMatchObject({ gateway: 'nginx', readTimeoutMs })
      haproxy = await client.organisations.create({
        gateway: { gateway: 'haproxy', readTimeoutMs },
      })
    }, 600_000)

    afterAll(async () => {
      // Each gone before its folder is: nginx writes in its temporary folders until it exits.
      await Promise.all(
        children.map(
          (child) =>
            new Promise((resolve) => {
              if (child.exitCode !== null || child.signalCode !== null) return resolve(undefined)
              child.once('exit', resolve)
              child.kill('SIGTERM')
            }),
        ),
      )
      await new Promise((resolve) => upstream?.close(resolve))
      rmSync(dir, { recursive: true, force: true })
    })

    /**
     * Arms `kind` for `tenant`'s next delete of ada (there again each time: the delete is not
     * applied); a slow body in pieces 2 s apart, past the read timeout, as the upstream's pause is.
     */
    const arm = async (tenant: Tenant, kind: FailureKindName) => {
      await tenant.putUser('ada', { registrationStatus: 'registered' })
      await tenant.clearFaults()
      await tenant.failNext('delete', kind === 'slow' ? { kind, delayMs: 14_000 } : { kind })
    }

    const rawDelete = (path: string, authorization = '') =>
      `DELETE ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${authorization}\r\n`

    const nginxKinds: FailureKindName[] = ['reset', 'empty', 'hang', 'slow']

    it.each(nginxKinds)('nginx, %s: the same bytes and end on a raw socket', async (kind) => {
      const real = await exchange(ports.nginx, rawDelete(`/api/v1/users/org/ada?kind=${kind}`))
      await arm(nginx, kind)
      const port = Number(new URL(mockUrl).port)
      const mocked = await exchange(
        port,
        rawDelete(`/api/v1/users/${nginx.orgId}/ada`, `Authorization: Bearer ${nginx.apiKey}\r\n`),
      )
      if (kind === 'slow') {
        // Headers of the API's own answer (the upstream's are its own), no body, closed: compare the shape.
        const shape = (met: Met) => ({
          status: met.bytes.split('\r\n')[0],
          body: met.bytes.slice(met.bytes.indexOf('\r\n\r\n') + 4),
          closed: met.closed,
        })
        expect(shape(mocked)).toEqual(shape(real))
        expect(shape(real)).toEqual({ status: 'HTTP/1.1 200 OK', body: '', closed: true })
      } else {
        expect(mocked).toEqual(real)
        expect(real.bytes).toMatch(/^HTTP\/1\.1 50[24] /)
      }
    })

    it.each(['reset', 'hang'] as FailureKindName[])(
      'haproxy, %s: the same page, byte for byte',
      async (kind) => {
        const real = await exchange(ports.haproxy, rawDelete(`/api/v1/users/org/ada?kind=${kind}`))
        await arm(haproxy, kind)
        const port = Number(new URL(mockUrl).port)
        const mocked = await exchange(
          port,
          rawDelete(
            `/api/v1/users/${haproxy.orgId}/ada`,
            `Authorization: Bearer ${haproxy.apiKey}\r\n`,
          ),
        )
        expect(mocked.bytes).toBe(real.bytes)
        expect(real.bytes).toMatch(/^HTTP\/1\.1 50[24] /)
      },
    )

    /** What a client met: its outcome, its attempts and the milliseconds it took. */
    interface ClientMet {
      outcome: string | number
      attempts: number
      ms: number
    }

    /** What `client` met identifying at `url`, run in the scratch project as its user runs it. */
    const metBy = (client: ClientName | 'python', url: string, authorization = '', orgId = '') =>
      new Promise<ClientMet>((resolve, reject) => {
        const cwd = join(dir, 'project')
        const child =
          client === 'python'
            ? spawn('python3', ['client.py', url, authorization, orgId], { cwd })
            : spawn(node26, ['client.mjs', client, url, authorization, orgId], { cwd })
        let out = ''
        let err = ''
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString()
        })
        child.stderr.on('data', (chunk: Buffer) => {
          err += chunk.toString()
        })
        child.on('exit', () => {
          try {
            resolve(JSON.parse(out))
          } catch {
            reject(new Error(`${client} printed no outcome: ${out}${err}`))
          }
        })
      })

    /**
     * Two times alike: within 20 % of each other, or 150 ms for the kinds answered at once on both
     * sides (reset and empty: a 502 in a few ms), whose milliseconds are the clients' own back-off
     * (50 ms a retry at most) and the machine's noise, where a fifth is nothing to measure. The
     * others wait for the read timeout once an attempt (a second), so a fifth of them is 200 ms or
     * more.
     */
    const alike = (mocked: number, real: number) =>
      Math.abs(mocked - real) <= Math.max(0.2 * Math.max(mocked, real), 150)

    /** Measurements of each side at most, for a time that the machine's load stretched. */
    const rounds = 3

    /**
     * Holds `client` against nginx and the packed mock under nginx, kind by kind: the same outcome
     * (error class and status or code) and as many attempts, each time, and alike times. A busy
     * machine only ever adds to a time, so each side's time is the least of its measurements: a
     * pair not alike is measured again (up to {@link rounds}), one side after the other.
     */
    async function holdAgainstNginx(client: ClientName | 'python') {
      for (const kind of nginxKinds) {
        const times = { real: Number.POSITIVE_INFINITY, mocked: Number.POSITIVE_INFINITY }
        for (let round = 1; round <= rounds; round++) {
          const real = await metBy(
            client,
            `http://127.0.0.1:${ports.nginx}/api/v1/users/identify?kind=${kind}`,
          )
          await nginx.clearFaults()
          // Every attempt meets it, as every one meets the failing upstream.
          await nginx.failNext(
            'identify',
            kind === 'slow' ? { kind, delayMs: 14_000, count: 5 } : { kind, count: 5 },
          )
          const mocked = await metBy(
            client,
            `${mockUrl}/api/v1/users/identify`,
            `Bearer ${nginx.apiKey}`,
            nginx.orgId,
          )
          expect({ kind, outcome: mocked.outcome, attempts: mocked.attempts }).toEqual({
            kind,
            outcome: real.outcome,
            attempts: real.attempts,
          })
          // The POSTs are retried: a 504 is, by each client as configured.
          if (kind === 'hang') expect(real.attempts).toBeGreaterThan(1)
          times.real = Math.min(times.real, real.ms)
          times.mocked = Math.min(times.mocked, mocked.ms)
          if (alike(times.mocked, times.real)) break
        }
        expect(
          alike(times.mocked, times.real),
          `${kind}: ${times.mocked} ms against the mock, ${times.real} ms against nginx`,
        ).toBe(true)
      }
      await nginx.clearFaults()
    }

    it.for(clientNames)(
      'nginx: %s retrying its POSTs meets the same error, makes as many attempts and takes the same time, kind by kind',
      { timeout: 120_000 },
      (client) => holdAgainstNginx(client),
    )

    it.skipIf(!hasRequests)(
      `nginx: Python requests with urllib3.Retry meets the same error, makes as many attempts and takes the same time, kind by kind${hasRequests ? '' : ' (skipped: python3 cannot import requests)'}`,
      { timeout: 120_000 },
      () => holdAgainstNginx('python'),
    )

    it.each(nginxKinds)('nginx, %s: Node fetch meets the same answer or error', async (kind) => {
      const real = await fetched(
        `http://127.0.0.1:${ports.nginx}/api/v1/users/org/ada?kind=${kind}`,
        {
          method: 'DELETE',
        },
      )
      await arm(nginx, kind)
      const mocked = await fetched(`${mockUrl}/api/v1/users/${nginx.orgId}/ada`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${nginx.apiKey}` },
      })
      expect(mocked).toBe(real)
    })
  },
)
