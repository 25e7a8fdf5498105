import { type ChildProcess, spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { expect } from 'vitest'

export const cliPath = fileURLToPath(new URL('../../src/server/cli.ts', import.meta.url))

export interface CliProcess {
  child: ChildProcess
  stdout: () => string
  stderr: () => string
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

/**
 * Runs the CLI as a user would (TypeScript through tsx), with the test's Node; through
 * `launcher` (a command and its arguments, such as `unshare --pid --fork`) when given; with `env`
 * added to the test's environment.
 */
export function runCli(
  args: string[],
  launcher: string[] = [],
  env: Record<string, string> = {},
): CliProcess {
  const command = [...launcher, process.execPath, '--import', 'tsx', cliPath, ...args]
  const child = spawn(command[0] as string, command.slice(1), {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  })
  let out = ''
  let err = ''
  child.stdout?.on('data', (chunk) => {
    out += chunk
  })
  child.stderr?.on('data', (chunk) => {
    err += chunk
  })
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  )
  return { child, stdout: () => out, stderr: () => err, exit }
}

/**
 * Waits until the CLI's standard output (or `stream`) matches `pattern`; fails with what it
 * printed if it exits first.
 */
export async function waitForOutput(
  cli: CliProcess,
  pattern: RegExp,
  {
    stream = 'stdout',
    timeoutMs = 15_000,
  }: { stream?: 'stdout' | 'stderr'; timeoutMs?: number } = {},
) {
  const deadline = Date.now() + timeoutMs
  let exited = false
  cli.exit.then(() => {
    exited = true
  })
  for (;;) {
    const match = cli[stream]().match(pattern)
    if (match) return match
    if (exited || Date.now() > deadline) {
      throw new Error(
        `no ${pattern} in the output.\nstdout: ${cli.stdout()}\nstderr: ${cli.stderr()}`,
      )
    }
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** Ends `cli` with SIGKILL, as a crash or `docker kill` would, and waits until it has exited. */
export async function killCli(cli: CliProcess): Promise<void> {
  cli.child.kill('SIGKILL')
  await cli.exit
}

/**
 * Starts `serve` on a free port (through `launcher`, if any, with `env` added) and returns the URL
 * its banner prints.
 */
export async function startCli(
  args: string[] = [],
  launcher: string[] = [],
  env: Record<string, string> = {},
) {
  const cli = runCli(['serve', '--port', '0', ...args], launcher, env)
  const [, url = ''] = await waitForOutput(cli, /listening on (http:\/\/\S+)/)
  return { cli, url }
}

/**
 * Runs the CLI with `args` and expects what a user given a bad option or file should see: a
 * exit code 1 and one line on stderr, matching `message`, with no stack trace. The stderr.
 */
export async function expectRefusal(
  args: string[],
  message: RegExp,
  launcher: string[] = [],
  env: Record<string, string> = {},
): Promise<string> {
  const cli = runCli(args, launcher, env)
  expect((await cli.exit).code).toBe(1)
  const lines = cli.stderr().trim().split('\n')
  expect(lines).toHaveLength(1)
  expect(lines[0]).toMatch(message)
  expect(cli.stderr()).not.toMatch(/\bat .*\.[jt]s:\d+/)
  return cli.stderr()
}
