import { execFile, spawn } from 'node:child_process'
import { promisify } from 'node:util'
import { expect, it } from 'vitest'

const run = promisify(execFile)

it('starts with npm start as a new user would, prints its block and answers its curl line', async () => {
  const child = spawn('npm', ['start', '--silent', '--', '--port', '0'], {
    cwd: new URL('../..', import.meta.url),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  let url = ''
  child.stdout.on('data', (chunk) => {
    out += chunk
  })
  const exited = new Promise((resolve) => child.on('exit', resolve))
  try {
    const deadline = Date.now() + 20_000
    while (!/^ {2}curl .*$/m.test(out) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    expect(out).toMatch(/^identify-api-mock listening on http:\/\/127\.0\.0\.1:\d+$/m)
    expect(out).toMatch(
      /Organisations and API keys:\n {2}org-1 +sk_test_\w+\n {2}org-2 +sk_test_\w+/,
    )
    url = out.match(/listening on (\S+)/)?.[1] ?? ''
    const curl = out.match(/^ {2}(curl .*)$/m)?.[1] ?? ''
    const { stdout } = await run('sh', ['-c', `${curl} -o /dev/null -w '%{http_code}'`])
    expect(stdout).toBe('200')
  } finally {
    // To npm alone, as a process manager stops what it started: the server stops with it.
    if (child.pid) process.kill(child.pid, 'SIGTERM')
  }
  await exited
  await new Promise((resolve) => setTimeout(resolve, 500))
  await expect(fetch(`${url}/__mock/health`)).rejects.toThrow()
}, 30_000)
