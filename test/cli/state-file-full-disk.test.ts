import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { type CliProcess, startCli } from '../support/cli-process.ts'

/**
 * A write the disk cannot take answers 500 and changes nothing ("The `--state-file` itself"):
 * the server runs in a mount namespace of its own, its state file on a 256 KiB tmpfs.
 */

/** Whether this machine lets the test mount a tmpfs in a namespace of its own (root, unshare). */
const canMount =
  spawnSync('unshare', ['-m', 'sh', '-c', 'mount -t tmpfs -o size=64k tmpfs /mnt']).status === 0

const key = 'full-disk-key'
let cli: CliProcess | undefined
const dir = mkdtempSync(join(tmpdir(), 'state-file-full-'))
afterAll(() => {
  cli?.child.kill('SIGKILL')
  rmSync(dir, { recursive: true, force: true })
})

it.skipIf(!canMount)(
  'answers 500 to a write the full disk refuses, says so in one line, and keeps nothing of it',
  async () => {
    const onTmpfs = [
      'unshare',
      '-m',
      'sh',
      '-c',
      'mount -t tmpfs -o size=256k tmpfs "$0" && exec "$@"',
      dir,
    ]
    const started = await startCli(
      ['--state-file', join(dir, 'state.db'), '--orgs', '0', '--org', 'acme', '--api-key', key],
      onTmpfs,
    )
    cli = started.cli
    const identify = (id: string) =>
      fetch(`${started.url}/api/v1/users/identify`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          id,
          orgId: 'acme',
          data: {
            firstName: 'f'.repeat(1024),
            lastName: 'l'.repeat(1024),
            region: 'r'.repeat(1024),
          },
        }),
      })
    const acknowledged: string[] = []
    let refused: Response | undefined
    for (let i = 0; i < 500 && !refused; i++) {
      const answer = await identify(`u-${i}`)
      if (answer.status === 200) acknowledged.push(`u-${i}`)
      else refused = answer
    }
    expect(acknowledged.length).toBeGreaterThan(0)
    expect(refused?.status).toBe(500)
    expect(await refused?.json()).toEqual({ code: 500, message: 'Internal server error' })
    const ids = async () => {
      const state = (await (await fetch(`${started.url}/__mock/state`)).json()) as {
        users: { id: string }[]
      }
      return state.users.map((u) => u.id).filter((id) => id.startsWith('u-'))
    }
    // The refused user is not in memory either, and what was answered 200 is all there.
    expect(await ids()).toEqual(acknowledged)
    expect(cli.stderr()).toMatch(
      /^identify-api-mock: could not write a call to .*state\.db \(.*\): it answers 500 and changes nothing\n/,
    )
  },
  60_000,
)
