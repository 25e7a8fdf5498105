import { execFile, spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

/**
 * Stopping what a script started stops the server: SIGTERM to the process started (what
 * Python's `Popen.terminate()` or a CI cleanup sends) and SIGINT to its process group (Ctrl-C),
 * for `npx identify-api-mock serve` (npm runs the bin under `sh -c` and passes no signal on) and
 * for the bin itself. The bin is the one `npm run build` makes, installed in a scratch project
 * where `npx` finds it as it finds an installed package's.
 */
const repo = fileURLToPath(new URL('../..', import.meta.url))
const project = mkdtempSync(join(tmpdir(), 'identify-api-mock-starter-'))
const installed = join(project, 'node_modules', 'identify-api-mock')
const bin = join(installed, 'cli.js')

beforeAll(async () => {
  mkdirSync(join(project, 'node_modules', '.bin'), { recursive: true })
  await promisify(execFile)(process.execPath, [join(repo, 'esbuild.config.ts')], {
    env: { ...process.env, BIN_OUT_DIR: installed },
  })
  writeFileSync(
    join(installed, 'package.json'),
    JSON.stringify({ name: 'identify-api-mock', type: 'module', bin: 'cli.js' }),
  )
  symlinkSync(bin, join(project, 'node_modules', '.bin', 'identify-api-mock'))
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ private: true, devDependencies: { 'identify-api-mock': '*' } }),
  )
}, 60_000)

afterAll(() => rmSync(project, { recursive: true, force: true }))

/** Whether a process with this id still exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/**
 * Starts `command` in a process group of its own with default signal handling, reads the JSON
 * start line, signals as `stop` says, and tells how the server fared within 3 s.
 */
async function startThenStop(command: string[], stop: 'SIGTERM to it' | 'SIGINT to its group') {
  const child = spawn(command[0] as string, command.slice(1), {
    cwd: project,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let err = ''
  child.stderr.on('data', (chunk) => {
    err += chunk
  })
  const line = await new Promise<string>((resolve, reject) => {
    let out = ''
    child.stdout.on('data', (chunk) => {
      out += chunk
      if (out.includes('\n')) resolve(out.split('\n')[0] ?? '')
    })
    child.on('exit', (code) => reject(new Error(`exited with ${code}: ${err}`)))
  })
  const { url, pid } = JSON.parse(line) as { url: string; pid: number }
  const health = () =>
    fetch(`${url}/__mock/health`).then(
      (res) => res.status,
      () => 'closed',
    )
  expect(await health()).toBe(200)
  if (stop === 'SIGTERM to it') process.kill(child.pid as number, 'SIGTERM')
  else process.kill(-(child.pid as number), 'SIGINT')
  const deadline = Date.now() + 3000
  while ((alive(pid) || (await health()) !== 'closed') && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  const fared = { port: await health(), serverAlive: alive(pid) }
  if (fared.serverAlive) process.kill(pid, 'SIGKILL')
  return { fared, pid, child: child.pid }
}

const stopped = { port: 'closed', serverAlive: false }

describe('npx identify-api-mock serve', () => {
  const npx = ['npx', 'identify-api-mock', 'serve', '--port', '0', '--json']

  it('gives the server’s own pid, and stops within 3 s on SIGTERM to npx', async () => {
    const { fared, pid, child } = await startThenStop(npx, 'SIGTERM to it')
    expect(pid).not.toBe(child)
    expect(fared).toEqual(stopped)
  }, 60_000)

  it('stops within 3 s on SIGINT to its process group', async () => {
    expect((await startThenStop(npx, 'SIGINT to its group')).fared).toEqual(stopped)
  }, 60_000)
})

describe('the bin', () => {
  const direct = [process.execPath, bin, 'serve', '--port', '0', '--json']

  it('stops within 3 s on SIGTERM, its pid the one started', async () => {
    const { fared, pid, child } = await startThenStop(direct, 'SIGTERM to it')
    expect(pid).toBe(child)
    expect(fared).toEqual(stopped)
  }, 60_000)

  it('stops within 3 s on SIGINT to its process group', async () => {
    expect((await startThenStop(direct, 'SIGINT to its group')).fared).toEqual(stopped)
  }, 60_000)
})
