import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { open } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { runCli, waitForOutput } from '../support/cli-process.ts'

/**
 * A server that is PID 1 (in a container) stops on SIGTERM during its start-up, not only once it
 * listens: the kernel drops a signal PID 1 has no handler for, so an engine's stop would wait out
 * its grace period and kill. The start-up is held open on a data file that is a FIFO, read only
 * once the test writes it: the signal arrives while the CLI is reading its data.
 */
const canUnshare = spawnSync('unshare', ['--pid', '--fork', '--mount-proc', 'true']).status === 0
const dir = mkdtempSync(join(tmpdir(), 'identify-api-mock-stop-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

it.skipIf(!canUnshare)(
  'exits 0 on SIGTERM while starting up as PID 1, before it listens',
  async () => {
    const fifo = join(dir, 'data.json')
    execFileSync('mkfifo', [fifo])
    const namespace = ['unshare', '--pid', '--fork', '--kill-child', '--mount-proc']
    const cli = runCli(['serve', '--port', '0', '--data', fifo], namespace)
    try {
      // Opening a FIFO to write waits until its reader opens it: the CLI is then in its start-up.
      const writer = await open(fifo, 'w')
      const pid = Number(
        readFileSync(`/proc/${cli.child.pid}/task/${cli.child.pid}/children`, 'utf8'),
      )
      process.kill(pid, 'SIGTERM')
      // Without a handler the signal is dropped and the CLI waits for its data: it gets it after
      // a while, and the server starts. (Written at once, the data could race the signal.)
      const feed = setTimeout(async () => {
        await writer.writeFile('{"organisations":[],"users":[]}').catch(() => undefined)
        await writer.close().catch(() => undefined)
      }, 10_000)
      cli.exit.then(() => {
        clearTimeout(feed)
        void writer.close().catch(() => undefined)
      })
      const listening = waitForOutput(cli, /listening on/).then(
        () => 'listening',
        () => 'never listened',
      )
      expect(await Promise.race([cli.exit, listening])).toEqual({ code: 0, signal: null })
      expect(await listening).toBe('never listened')
    } finally {
      cli.child.kill('SIGKILL')
    }
  },
  30_000,
)
