import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { type CliProcess, killCli, startCli } from '../support/cli-process.ts'
import { buildFailingDisk } from '../support/failing-disk.ts'

/**
 * A failed commit leaves the state file telling the truth ("The `--state-file` itself"): a sync
 * that fails may leave the group's frames whole in the write-ahead log, and a start after
 * `kill -9` replayed them, bringing back calls answered "500, changes nothing". The disk here is
 * one whose syncs fail on demand (LD_PRELOAD, built with the machine's C compiler).
 */

const key = 'failing-disk-key'
const dir = mkdtempSync(join(tmpdir(), 'state-file-failed-commit-'))
const disk = buildFailingDisk(dir)
/** Every server a test started, killed at the end whatever happened. */
const started: CliProcess[] = []
afterAll(async () => {
  await Promise.all(started.map(killCli))
  rmSync(dir, { recursive: true, force: true })
})

/** `serve` on the state file `path`, organisation acme alone, through `launcher` with `env`. */
async function serve(path: string, { launcher = [] as string[], env = {} } = {}) {
  const args = ['--state-file', path, '--orgs', '0', '--org', 'acme', '--api-key', key]
  const server = await startCli([...args, '--users', '0'], launcher, env)
  started.push(server.cli)
  return server
}
let count = 0

/** Identifies `id` with a first name that says which call wrote it; the answer's status. */
async function identify(url: string, id: string) {
  const answer = await fetch(`${url}/api/v1/users/identify`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id, orgId: 'acme', data: { firstName: `name-${id}` } }),
  })
  await answer.arrayBuffer()
  return answer.status
}

async function storedIds(url: string): Promise<string[]> {
  const state = (await (await fetch(`${url}/__mock/state`)).json()) as { users: { id: string }[] }
  return state.users.map((u) => u.id).sort()
}

it.skipIf(!disk)(
  'answers 500 to a call whose sync failed, puts the file right at once, and after kill -9 holds exactly what was answered 200',
  async () => {
    if (!disk) return
    const path = join(dir, `once-${++count}.db`)
    const server = await serve(path, { env: disk.env(path) })
    const acknowledged = ['before-0', 'before-1', 'before-2']
    for (const id of acknowledged) expect(await identify(server.url, id)).toBe(200)
    // The next sync fails: the call's frames are whole in the log, its commit reported failed.
    disk.failNextSyncs(1)
    expect(await identify(server.url, 'failed')).toBe(500)
    expect(await storedIds(server.url)).toEqual(acknowledged)
    expect(server.cli.stderr()).toMatch(
      /^identify-api-mock: could not write a call to .* \(disk I\/O error\): it answers 500 and changes nothing\n$/,
    )
    // Killed before any other commit could write over those frames.
    await killCli(server.cli)

    const restarted = await serve(path)
    expect(await storedIds(restarted.url)).toEqual(acknowledged)
    // And the file takes writes again.
    expect(await identify(restarted.url, 'after')).toBe(200)
    await killCli(restarted.cli)
  },
  60_000,
)

it.skipIf(!disk)(
  'when the file cannot be put right, answers 503 and takes no more writes until a restart, which loads every call answered 200 and none refused after',
  async () => {
    if (!disk) return
    const path = join(dir, `always-${++count}.db`)
    const server = await serve(path, { env: disk.env(path) })
    const acknowledged = ['before-0', 'before-1', 'before-2']
    for (const id of acknowledged) expect(await identify(server.url, id)).toBe(200)
    // Every sync fails from now on: the group's own, and the repair's.
    disk.failNextSyncs(1_000_000)
    expect(await identify(server.url, 'in-doubt')).toBe(503)
    const refused = ['stopped-0', 'stopped-1', 'stopped-2']
    for (const id of refused) expect(await identify(server.url, id)).toBe(503)
    const reset = await fetch(`${server.url}/__mock/reset`, { method: 'POST' })
    expect(reset.status).toBe(503)
    // Reads are still answered, from what was acknowledged.
    expect(await storedIds(server.url)).toEqual(acknowledged)
    const lines = server.cli.stderr().split('\n')
    expect(lines[0]).toMatch(
      /^identify-api-mock: could not write a call to .* \(disk I\/O error\), nor put the file right after it \(disk I\/O error\): whether it was written is known only when the file is read again; it answers 503, and so does every change until the server is restarted$/,
    )
    expect(lines[1]).toMatch(
      /^identify-api-mock: a call was not written to .*, which takes no writes since a commit failed and could not be put right: it answers 503 and changes nothing \(restart the server to load what the file holds\)$/,
    )
    disk.failNextSyncs(0)
    await killCli(server.cli)

    const restarted = await serve(path)
    const stored = await storedIds(restarted.url)
    // Every call answered 200 is there, none refused after the failure; the call in doubt is
    // there or not, whole (its frames reached the log, its sync failed).
    expect(stored.filter((id) => id !== 'in-doubt')).toEqual(acknowledged)
    await killCli(restarted.cli)
  },
  60_000,
)

/**
 * Whether this machine lets the test mount an ext4 image on a loop device in a mount namespace of
 * its own (root, util-linux, the ext4 module), as a disk whose file system turns read-only.
 */
function loopMountable(): boolean {
  const image = join(dir, 'probe.img')
  const probe = [
    `truncate -s 8M "${image}"`,
    `mkfs.ext4 -q "${image}"`,
    `mkdir -p "${dir}/probe"`,
    `mount -o loop "${image}" "${dir}/probe"`,
    `umount "${dir}/probe"`,
  ].join(' && ')
  const ok = spawnSync('unshare', ['-m', 'sh', '-c', probe]).status === 0
  rmSync(image, { force: true })
  return ok
}

it.skipIf(!loopMountable())(
  'on a file system aborted to read-only mid-load: no call answered 200 is lost after kill -9, and none refused is there',
  async () => {
    const image = join(dir, 'disk.img')
    const mount = join(dir, 'mnt')
    spawnSync('sh', [
      '-c',
      `truncate -s 32M "${image}" && mkfs.ext4 -q "${image}" && mkdir -p "${mount}"`,
    ])
    // Each server is started in a mount namespace of its own, with the image mounted there.
    const onImage = [
      'unshare',
      '-m',
      'sh',
      '-c',
      'mount -o loop "$0" "$1" && shift && exec "$@"',
      image,
      mount,
    ]
    const path = join(mount, 'state.db')
    const first = await serve(path, { launcher: onImage })
    const answered = new Map<string, number>()
    for (let i = 0; i < 20; i++)
      answered.set(`before-${i}`, await identify(first.url, `before-${i}`))
    // The file system aborts while calls keep coming, as ext4 does on an I/O error of its journal.
    const load = (async () => {
      for (let i = 0; i < 200; i++)
        answered.set(`during-${i}`, await identify(first.url, `during-${i}`))
    })()
    await new Promise((resolve) => setTimeout(resolve, 50))
    const abort = spawnSync('nsenter', [
      '-t',
      String(first.cli.child.pid),
      '-m',
      'mount',
      '-o',
      'remount,abort',
      mount,
    ])
    expect(abort.status).toBe(0)
    await load
    const statuses = new Set(answered.values())
    expect([...statuses].every((s) => [200, 500, 503].includes(s))).toBe(true)
    // The calls after the abort are refused: the last ones at once, 503.
    expect(answered.get('during-199')).toBe(503)
    await killCli(first.cli)

    const second = await serve(path, { launcher: onImage })
    const stored = new Set(await storedIds(second.url))
    for (const [id, status] of answered) {
      if (status === 200) expect(stored.has(id), id).toBe(true)
      if (status === 500) expect(stored.has(id), id).toBe(false)
    }
    // What is there beyond the calls answered 200 was answered 503: a group in doubt, whole.
    const extra = [...stored].filter((id) => answered.get(id) !== 200)
    for (const id of extra) expect(answered.get(id), id).toBe(503)
    await killCli(second.cli)
  },
  120_000,
)
