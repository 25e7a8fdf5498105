import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { answersWithin, freePort, repoRoot } from './processes.ts'

/** The Prism release measured: its mock server from the npm registry, run through `npx`. */
export const prismPackage = '@stoplight/prism-cli@5'

export interface Prism {
  url: string
  /** The `npx` that runs it: `cpuSecondsOf` counts the processes below it. */
  pid: number
  stop(): void
}

/**
 * Prism's mock of the API's OpenAPI document (the committed `openapi.json`, which the test suite
 * keeps equal to what `identify-api-mock openapi` writes), logging off. `npx` installs it from the npm registry on first use; `undefined` and the reason when it
 * cannot (offline, say), so that the benchmark still runs without it.
 */
export async function startPrism(): Promise<Prism | { unavailable: string }> {
  if (process.env.BENCH_PRISM === '0') return { unavailable: 'skipped (BENCH_PRISM=0)' }
  const spec = join(repoRoot, 'openapi.json')
  const port = await freePort()
  const child = spawn(
    'npx',
    [
      '--yes',
      '--package',
      prismPackage,
      'prism',
      'mock',
      spec,
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--errors',
      'false',
      '--verboseLevel',
      'silent',
    ],
    { stdio: 'ignore', detached: true },
  )
  const stop = () => {
    try {
      if (child.pid) process.kill(-child.pid, 'SIGTERM')
    } catch {}
  }
  const url = `http://127.0.0.1:${port}`
  if (await answersWithin(`${url}/__prism-probe`, 240_000, () => child.exitCode === null)) {
    return { url, pid: child.pid as number, stop }
  }
  stop()
  return { unavailable: `npx could not install or start ${prismPackage} within 4 minutes` }
}
