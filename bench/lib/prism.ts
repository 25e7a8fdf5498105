import { spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { repoRoot, send } from './processes.ts'

/** The Prism release measured: its mock server from the npm registry, run through `npx`. */
export const prismPackage = '@stoplight/prism-cli@5'

export interface Prism {
  url: string
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
  const deadline = Date.now() + 240_000
  while (Date.now() < deadline && child.exitCode === null) {
    const answered = await send({ url: `${url}/__prism-probe` }).then(
      () => true,
      () => false,
    )
    if (answered) return { url, stop }
    await new Promise((resolve) => setTimeout(resolve, 500))
  }
  stop()
  return { unavailable: `npx could not install or start ${prismPackage} within 4 minutes` }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0))
    })
  })
}
