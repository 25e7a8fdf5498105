import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import type { Credentials } from '../../src/root/index.ts'

const run = promisify(execFile)

/**
 * The image the container tests run (`.ci/run` builds it and names it here), and the engine that
 * runs it (`podman`, or `docker`).
 */
export const image = process.env.IDENTIFY_TEST_IMAGE
export const engine = process.env.IDENTIFY_TEST_ENGINE ?? 'podman'

/** Why the container tests cannot run here, if they cannot. */
export const noContainers =
  image === undefined
    ? 'no image: build one (docker build -t identify-api-mock .) and set IDENTIFY_TEST_IMAGE=identify-api-mock; .ci/run does'
    : undefined

/** Runs the engine with `args`; its standard output, trimmed. */
export async function containers(args: string[]): Promise<string> {
  const { stdout } = await run(engine, args, { maxBuffer: 16 * 1024 * 1024 })
  return stdout.trim()
}

/** A container of the image, its port 4010 published on a free loopback port. */
export interface RunningContainer {
  id: string
  /** `http://127.0.0.1:PORT` */
  url: string
  port: number
  credentials: Credentials[]
  /**
   * `engine stop` (SIGTERM, then SIGKILL after `seconds`, 10 by default), then removes the
   * container: how long the stop took and the exit code it left.
   */
  stop(seconds?: number): Promise<{ tookMs: number; exitCode: number }>
}

/**
 * Starts a container of the image with `args` appended to `docker run IMAGE` (serve flags), `env`,
 * a `volume` (`name:/path`) and the engine's own `options` (`--add-host=…`), and waits until
 * `/__mock/health` answers.
 */
export async function startContainer(
  args: string[] = [],
  {
    env = {},
    volume,
    options = [],
  }: { env?: Record<string, string>; volume?: string; options?: string[] } = {},
): Promise<RunningContainer> {
  const envArgs = Object.entries(env).flatMap(([name, value]) => ['-e', `${name}=${value}`])
  const id = await containers([
    'run',
    '-d',
    '-p',
    '127.0.0.1::4010',
    ...envArgs,
    ...(volume ? ['-v', volume] : []),
    ...options,
    image as string,
    ...args,
  ])
  const published = await containers(['port', id, '4010/tcp'])
  const port = Number(published.split('\n')[0]?.split(':').at(-1))
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 30_000
  for (;;) {
    const status = await fetch(`${url}/__mock/health`).then(
      (res) => res.status,
      () => 0,
    )
    if (status === 200) break
    if (Date.now() > deadline) {
      const logs = await containers(['logs', id]).catch(() => '')
      await containers(['rm', '-f', id]).catch(() => '')
      throw new Error(`the container did not answer within 30 s: ${logs}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  // Behind a control token, or with the controls off, the organisations are not listed.
  const listed = await fetch(`${url}/__mock/organisations`)
  const { organisations = [] } = (listed.ok ? await listed.json() : {}) as {
    organisations?: Credentials[]
  }
  return {
    id,
    url,
    port,
    credentials: organisations.map(({ orgId, name, apiKeys }) => ({ orgId, name, apiKeys })),
    stop: async (seconds = 10) => {
      const started = performance.now()
      await containers(['stop', '--time', String(seconds), id])
      const tookMs = performance.now() - started
      const exitCode = Number(await containers(['inspect', '--format', '{{.State.ExitCode}}', id]))
      await containers(['rm', '-f', id])
      return { tookMs, exitCode }
    },
  }
}
