import { type ChildProcess, fork, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { request } from 'node:http'
import { fileURLToPath } from 'node:url'
import type { Credentials } from '../../fixtures/build-dataset.ts'
import type { ServerOptions } from '../../src/server/server.ts'

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url))
export const binPath = fileURLToPath(new URL('../../dist/src/server/cli.js', import.meta.url))
const bareServerPath = fileURLToPath(new URL('../bare-server.mjs', import.meta.url))
const serverChildPath = fileURLToPath(new URL('../server-child.ts', import.meta.url))

export interface Memory {
  heapUsed: number
  rss: number
  /** The highest RSS of the process so far. */
  peakRss: number
}

/** A standalone mock server in a process of its own (see `bench/server-child.ts`). */
export interface MockServer {
  url: string
  /**
   * Heap, RSS and peak RSS of the server process, after garbage collection unless `collect` is
   * false (what the process holds on its own, as it would without `--expose-gc`).
   */
  memory(options?: { collect?: boolean }): Promise<Memory>
  stop(): Promise<void>
  /** Kills it with SIGKILL, as a crash or `docker kill` would. */
  kill(): Promise<void>
}

export async function startMockServer(options: ServerOptions = {}): Promise<MockServer> {
  const child = fork(serverChildPath, [JSON.stringify(options)], {
    execArgv: ['--expose-gc'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  const ready = await nextMessage<{ url: string }>(child, 'ready')
  return {
    url: ready.url,
    memory: async ({ collect = true } = {}) => {
      const reply = nextMessage<Memory>(child, 'memory')
      child.send({ type: 'memory', collect })
      return reply
    },
    stop: () => stop(child),
    kill: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve())
        child.kill('SIGKILL')
      }),
  }
}

/**
 * The bare `node:http` server answering `body` to every request; `memory` reads its RSS and peak
 * RSS from `/proc` (its heap is not known: `heapUsed` is `NaN`).
 */
export async function startBareServer(
  body: string,
): Promise<{ url: string; memory(): Promise<Memory>; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [bareServerPath, body], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const { url } = await firstJsonLine<{ url: string }>(child)
  const memory = async () => {
    const status = child.pid ? processStatus(child.pid) : {}
    const rss = status.VmRSS ?? Number.NaN
    return { heapUsed: Number.NaN, rss, peakRss: status.VmHWM ?? rss }
  }
  return { url, memory, stop: () => stop(child) }
}

/**
 * Runs `command` (a server printing its URL on a JSON line), sends it one request as soon as it
 * prints the URL, and measures the time from the spawn to the end of the answer (which must be a
 * 200), then stops it.
 */
export async function timeToFirst200(
  args: string[],
  firstRequest: (url: string, facts: StartFacts) => HttpRequest,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ ms: number; rssBytes: number; peakRssBytes: number }> {
  const started = performance.now()
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'], env })
  try {
    const facts = await firstJsonLine<StartFacts>(child)
    const answer = await send(firstRequest(facts.url, facts))
    const ms = performance.now() - started
    if (answer.status !== 200) throw new Error(`first answer ${answer.status}: ${answer.body}`)
    const status = child.pid ? processStatus(child.pid) : {}
    return { ms, rssBytes: status.VmRSS ?? Number.NaN, peakRssBytes: status.VmHWM ?? Number.NaN }
  } finally {
    await stop(child)
  }
}

/** What a server prints at start with `--json` (the bare one prints its `url` only). */
export interface StartFacts {
  url: string
  organisations?: Credentials[]
}

export interface HttpRequest {
  url: string
  method?: string
  headers?: Record<string, string>
  body?: string
}

/** One request over a fresh connection, without `fetch` (whose first use loads undici). */
export function send(options: HttpRequest): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      options.url,
      { method: options.method ?? 'GET', headers: options.headers, agent: false },
      (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => {
          body += chunk
        })
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
      },
    )
    req.on('error', reject)
    req.end(options.body)
  })
}

/** `VmRSS` and `VmHWM` (peak RSS) of a process, in bytes; Linux only (empty elsewhere). */
function processStatus(pid: number): { VmRSS?: number; VmHWM?: number } {
  try {
    const text = readFileSync(`/proc/${pid}/status`, 'utf8')
    const kb = (name: string) => Number(text.match(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm'))?.[1])
    return { VmRSS: kb('VmRSS') * 1024, VmHWM: kb('VmHWM') * 1024 }
  } catch {
    return {}
  }
}

function firstJsonLine<T>(child: ChildProcess): Promise<T> {
  return new Promise((resolve, reject) => {
    let out = ''
    const onData = (chunk: Buffer) => {
      out += chunk
      const line = out.split('\n').find((l) => l.startsWith('{') && l.endsWith('}'))
      if (!line) return
      child.stdout?.off('data', onData)
      child.stdout?.resume()
      resolve(JSON.parse(line) as T)
    }
    child.stdout?.on('data', onData)
    child.once('exit', (code) =>
      reject(new Error(`server exited (${code}) before printing its URL`)),
    )
  })
}

function nextMessage<T>(child: ChildProcess, type: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: { type?: string }) => {
      if (message.type !== type) return
      child.off('message', onMessage)
      resolve(message as T)
    }
    child.on('message', onMessage)
    child.once('exit', (code) => reject(new Error(`server exited (${code})`)))
  })
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000)
    child.once('exit', () => {
      clearTimeout(timer)
      resolve()
    })
    child.kill('SIGTERM')
  })
}
