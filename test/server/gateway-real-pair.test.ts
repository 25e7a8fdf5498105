import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { connectMockApi, type Tenant } from '../../src/client/connect-mock-api.ts'
import type { FailureKindName } from '../../src/core/failure-kinds.ts'
import { type RunningServer, startServer } from '../../src/server/server.ts'
import { freePort } from '../support/free-port.ts'

/**
 * The mock under `nginx` and `haproxy` held against the real ones: Debian's nginx 1.22 and
 * haproxy 2.6 on loopback in front of a small upstream that fails on purpose the way each kind
 * describes. A raw socket client meets the same bytes (the `Date` aside) and the same end of the
 * connection; Node's `fetch` the same status and reason phrase, or the same error; `axios` with
 * `axios-retry`, `got` and `ky`, each with its retries (installed in a scratch project), and
 * Python's `requests` with `urllib3.Retry`, the same error class and as many attempts (against
 * nginx: `AxiosError 502` three times, `got`'s `ReadError` once for a body cut, `RetryError`…).
 * Where the gateways are not installed it is skipped (`.ci/run` installs them, and `requests`);
 * where the clients cannot be installed, their tests are skipped with the reason.
 */

const nginxBin = '/usr/sbin/nginx'
const haproxyBin = '/usr/sbin/haproxy'
const installed = existsSync(nginxBin) && existsSync(haproxyBin)
const why =
  'skipped: nginx and haproxy are not installed (apt-get install nginx haproxy; .ci/run does)'

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 })

/** The read timeout both sides are given. */
const readTimeoutMs = 1000

/** A body as the mock's delete answers it: what the upstream sends, in the same pieces. */
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
 * A script that deletes with one client and its retries (two, 50 ms apart at most), and prints what
 * the caller met: the error's class and status or code, and how many attempts it made.
 */
const clientScript = `
import axios from 'axios'
import axiosRetry from 'axios-retry'
import got from 'got'
import ky from 'ky'
const [name, url, authorization = ''] = process.argv.slice(2)
const headers = authorization ? { authorization } : {}
let attempts = 1
const print = (outcome) => console.log(JSON.stringify({ outcome, attempts }))
try {
  if (name === 'axios') {
    const client = axios.create({ timeout: 10000 })
    axiosRetry(client, { retries: 2, retryDelay: () => 50, onRetry: () => attempts++ })
    const answer = await client.delete(url, { headers })
    print(answer.status)
  } else if (name === 'got') {
    const answer = await got.delete(url, {
      headers,
      timeout: { request: 10000 },
      retry: { limit: 2, backoffLimit: 50 },
      hooks: { beforeRetry: [() => attempts++] },
    })
    print(answer.statusCode)
  } else {
    const answer = await ky.delete(url, {
      headers,
      timeout: 10000,
      retry: { limit: 2, backoffLimit: 50 },
      hooks: { beforeRetry: [() => { attempts++ }] },
    })
    print(answer.status)
  }
} catch (error) {
  print(error.name + ' ' + (error.response?.status ?? error.response?.statusCode ?? error.code ?? ''))
}
`

/** Python's `requests` with `urllib3.Retry` (two retries, on 502, 503 and 504 too), as the Python example's backend would call. */
const pythonScript = `
import json, sys
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
headers = {'authorization': sys.argv[2]} if len(sys.argv) > 2 else {}
session = requests.Session()
retry = Counted(total=2, backoff_factor=0.01, status_forcelist=[502, 503, 504])
session.mount('http://', HTTPAdapter(max_retries=retry))
try:
    outcome = session.delete(url, headers=headers, timeout=10).status_code
except Exception as error:
    outcome = type(error).__name__
print(json.dumps({'outcome': outcome, 'attempts': attempts}, separators=(',', ':')))
`

/** Whether Python's `requests` can be imported here. */
const hasRequests = spawnSync('python3', ['-c', 'import requests, urllib3']).status === 0

describe.skipIf(!installed)(
  `the mock behind a gateway, beside the real one (${installed ? 'nginx and haproxy found' : why})`,
  () => {
    let dir = ''
    let upstream: Server
    const children: ChildProcess[] = []
    const ports = { upstream: 0, nginx: 0, haproxy: 0 }
    let mock: RunningServer
    let nginx: Tenant
    let haproxy: Tenant
    /** Why the clients could not be installed, if they could not. */
    let noClients = ''

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'gateway-pair-'))
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
      mock = await startServer({ port: 0 })
      const client = connectMockApi(mock.url)
      const tenantBehind = async (gateway: 'nginx' | 'haproxy') => {
        const tenant = await client.organisations.create({ gateway: { gateway, readTimeoutMs } })
        return tenant
      }
      nginx = await tenantBehind('nginx')
      haproxy = await tenantBehind('haproxy')
      // The clients, in a scratch project as a user installs them (npm's cache first).
      writeFileSync(join(dir, 'package.json'), '{"private":true,"type":"module"}')
      writeFileSync(join(dir, 'client.mjs'), clientScript)
      writeFileSync(join(dir, 'client.py'), pythonScript)
      noClients = await new Promise<string>((resolve) => {
        const install = spawn(
          'npm',
          [
            'install',
            'axios',
            'axios-retry',
            'got',
            'ky',
            '--prefer-offline',
            '--no-audit',
            '--no-fund',
          ],
          { cwd: dir, stdio: 'ignore' },
        )
        install.on('error', (error) => resolve(error.message))
        install.on('exit', (code) => resolve(code === 0 ? '' : `npm install exited ${code}`))
      })
    }, 180_000)

    afterAll(async () => {
      for (const child of children) child.kill('SIGTERM')
      await mock?.close()
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
      const port = Number(new URL(mock.url).port)
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
        const port = Number(new URL(mock.url).port)
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

    /** What `client` met deleting at `url`: its outcome and attempts. */
    const metBy = (client: ClientName | 'python', url: string, authorization = '') =>
      new Promise<string>((resolve) => {
        const child =
          client === 'python'
            ? spawn('python3', ['client.py', url, ...(authorization ? [authorization] : [])], {
                cwd: dir,
              })
            : spawn(process.execPath, ['client.mjs', client, url, authorization], { cwd: dir })
        let out = ''
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString()
        })
        child.on('exit', () => resolve(out.trim()))
      })

    /** Holds `client` against nginx and the mock under nginx, kind by kind. */
    async function holdAgainstNginx(client: ClientName | 'python') {
      for (const kind of nginxKinds) {
        const real = await metBy(
          client,
          `http://127.0.0.1:${ports.nginx}/api/v1/users/org/ada?kind=${kind}`,
        )
        await nginx.putUser('ada', { registrationStatus: 'registered' })
        await nginx.clearFaults()
        // Every attempt meets it, as every one meets the failing upstream.
        await nginx.failNext(
          'delete',
          kind === 'slow' ? { kind, delayMs: 14_000, count: 5 } : { kind, count: 5 },
        )
        const mocked = await metBy(
          client,
          `${mock.url}/api/v1/users/${nginx.orgId}/ada`,
          `Bearer ${nginx.apiKey}`,
        )
        expect(`${kind}: ${mocked}`).toBe(`${kind}: ${real}`)
        expect(real).toMatch(/"attempts":\d/)
      }
      await nginx.clearFaults()
    }

    it.for(clientNames)(
      'nginx: %s with its retries meets the same error and makes as many attempts, kind by kind',
      { timeout: 120_000 },
      async (client, context) => {
        if (noClients) context.skip(`the clients could not be installed (${noClients})`)
        await holdAgainstNginx(client)
      },
    )

    it.skipIf(!hasRequests)(
      `nginx: Python requests with urllib3.Retry meets the same error and makes as many attempts, kind by kind${hasRequests ? '' : ' (skipped: python3 cannot import requests)'}`,
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
      const mocked = await fetched(`${mock.url}/api/v1/users/${nginx.orgId}/ada`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${nginx.apiKey}` },
      })
      expect(mocked).toBe(real)
    })
  },
)
