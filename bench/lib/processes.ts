import { type ChildProcess, fork, spawn } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { request } from 'node:http'
import { createServer } from 'node:net'
import { join } from 'node:path'
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
  /** The server's process: what {@link cpuSecondsOf} reads. */
  pid: number
  /**
   * Heap, RSS and peak RSS of the server process, after garbage collection unless `collect` is
   * false (what the process holds on its own, as it would without `--expose-gc`).
   */
  memory(options?: { collect?: boolean }): Promise<Memory>
  stop(): Promise<void>
  /** Kills it with SIGKILL, as a crash or `docker kill` would. */
  kill(): Promise<void>
}

/**
 * Starts a standalone mock server; `checkout`: the one of another checkout of the repository
 * (its own `bench/server-child.ts` and sources), as {@link checkoutOf} makes one; `under`: a
 * command that runs Node with its arguments after its own (`valgrind` and its options).
 */
export async function startMockServer(
  options: ServerOptions = {},
  checkout?: string,
  under?: string[],
): Promise<MockServer> {
  const childPath = checkout ? join(checkout, 'bench', 'server-child.ts') : serverChildPath
  const [command, ...args] = under ?? []
  const child = fork(childPath, [JSON.stringify(options)], {
    execArgv: command ? [...args, process.execPath, '--expose-gc'] : ['--expose-gc'],
    ...(command && { execPath: command }),
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  const ready = await nextMessage<{ url: string }>(child, 'ready')
  return {
    url: ready.url,
    pid: child.pid as number,
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
): Promise<{ url: string; pid: number; memory(): Promise<Memory>; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [bareServerPath, body], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const { url } = await firstJsonLine<{ url: string }>(child)
  const memory = async () => {
    const status = child.pid ? processStatus(child.pid) : {}
    const rss = status.VmRSS ?? Number.NaN
    return { heapUsed: Number.NaN, rss, peakRss: status.VmHWM ?? rss }
  }
  return { url, pid: child.pid as number, memory, stop: () => stop(child) }
}

/**
 * Runs `command` (a server printing its URL on a JSON line), sends it one request as soon as it
 * prints the URL, and measures the time from the spawn to the end of the answer (which must be a
 * 200), with the server's RSS and CPU time at that moment, then stops it.
 */
export async function timeToFirst200(
  args: string[],
  firstRequest: (url: string, facts: StartFacts) => HttpRequest,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ ms: number; rssBytes: number; peakRssBytes: number; cpuSeconds: number }> {
  const started = performance.now()
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'], env })
  try {
    const facts = await firstJsonLine<StartFacts>(child)
    const answer = await send(firstRequest(facts.url, facts))
    const ms = performance.now() - started
    if (answer.status !== 200) throw new Error(`first answer ${answer.status}: ${answer.body}`)
    const status = child.pid ? processStatus(child.pid) : {}
    const cpuSeconds = child.pid ? cpuSecondsOf(child.pid) : Number.NaN
    const [rssBytes, peakRssBytes] = [status.VmRSS ?? Number.NaN, status.VmHWM ?? Number.NaN]
    return { ms, rssBytes, peakRssBytes, cpuSeconds }
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

/** The clock ticks a second of `/proc/PID/stat`'s CPU times count (`getconf CLK_TCK`, 100 on Linux). */
const ticksPerSecond = 100

/**
 * The CPU time (user and system, in seconds) that process `pid` and every process below it have
 * used so far, from `/proc/PID/stat`: a server started through a launcher (`npx`, a shell) is
 * measured with the process that answers. Linux only (`NaN` elsewhere).
 */
export function cpuSecondsOf(pid: number): number {
  let entries: string[]
  try {
    entries = readdirSync('/proc').filter((name) => /^\d+$/.test(name))
  } catch {
    return Number.NaN
  }
  const children = new Map<number, number[]>()
  const ticks = new Map<number, number>()
  for (const entry of entries) {
    let stat: string
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
    } catch {
      continue // ended meanwhile
    }
    // The command name, in parentheses, may hold spaces: the fields are counted after it.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const parent = Number(fields[1])
    children.set(parent, [...(children.get(parent) ?? []), Number(entry)])
    ticks.set(Number(entry), Number(fields[11]) + Number(fields[12]))
  }
  let total = 0
  const pending = [pid]
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    total += ticks.get(next) ?? 0
    pending.push(...(children.get(next) ?? []))
  }
  return total / ticksPerSecond
}

/** A TCP port free on 127.0.0.1 at the moment of asking. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0))
    })
  })
}

/** Waits until `url` answers anything, for at most `ms`; whether it did. */
export async function answersWithin(url: string, ms: number, alive: () => boolean = () => true) {
  const deadline = Date.now() + ms
  while (Date.now() < deadline && alive()) {
    const answered = await send({ url }).then(
      () => true,
      () => false,
    )
    if (answered) return true
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  return false
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
