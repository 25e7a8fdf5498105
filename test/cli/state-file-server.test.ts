import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type CliProcess, expectRefusal, runCli, startCli } from '../support/cli-process.ts'

const key = 'state-file-key'
const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' }

/** Whether this machine lets the tests make PID namespaces (as root, with util-linux's unshare). */
const canUnshare = spawnSync('unshare', ['--pid', '--fork', '--mount-proc', 'true']).status === 0

let dir = ''
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'state-file-server-'))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const running = new Set<CliProcess>()
afterAll(() => {
  for (const cli of running) cli.child.kill('SIGKILL')
})

async function serve(path: string, org = ['--org', 'acme', '--api-key', key]) {
  const started = await startCli(['--state-file', path, '--orgs', '0', '--users', '2', ...org])
  running.add(started.cli)
  return started
}

async function kill(cli: CliProcess) {
  cli.child.kill('SIGKILL')
  await cli.exit
  running.delete(cli)
}

interface StoredUser {
  id: string
  orgId: string
  firstName: string | null
}

async function users(url: string): Promise<Map<string, StoredUser>> {
  const state = (await (await fetch(`${url}/__mock/state`)).json()) as { users: StoredUser[] }
  return new Map(state.users.map((u) => [u.id, u]))
}

function identify(url: string, id: string, firstName: string) {
  return fetch(`${url}/api/v1/users/identify`, {
    method: 'POST',
    headers: { ...auth, connection: 'close' },
    body: JSON.stringify({ id, orgId: 'acme', data: { firstName } }),
  })
}

describe('serve --state-file', () => {
  it('keeps every change across a restart, with --org and --api-key applied on top', async () => {
    const path = join(dir, 'restart.db')
    const first = await serve(path)
    const kept = await identify(first.url, 'kept', 'Ada')
    const { token } = (await kept.json()) as { token: string }
    const webView = (url: string) => fetch(`${url}/webview?orgId=acme&token=${token}&webview=true`)
    expect((await webView(first.url)).status).toBe(200)
    expect((await identify(first.url, 'changed', 'Before')).status).toBe(200)
    expect((await identify(first.url, 'changed', 'After')).status).toBe(200)
    expect((await identify(first.url, 'gone', 'Bo')).status).toBe(200)
    const deleted = await fetch(`${first.url}/api/v1/users/acme/gone`, {
      method: 'DELETE',
      headers: auth,
    })
    expect(deleted.status).toBe(200)
    const fault = await fetch(`${first.url}/__mock/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ operation: 'identify', status: 500 }),
    })
    expect(fault.status).toBe(204)
    // Keys and tokens are in the file only as hashes (the database and its write-ahead log).
    const text = [path, `${path}-wal`].map((file) => readFileSync(file, 'latin1')).join('')
    expect(text).toContain('"kept"')
    for (const secret of [key, token]) expect(text).not.toContain(secret)
    await kill(first.cli)

    const second = await serve(path, ['--org', 'beta', '--api-key', 'beta-key'])
    // Neither the journal nor a queued fault is kept.
    expect(await (await fetch(`${second.url}/__mock/requests`)).json()).toEqual([])
    const stored = await users(second.url)
    expect(stored.get('kept')?.firstName).toBe('Ada')
    const reused = await webView(second.url)
    expect(reused.status).toBe(401)
    expect(await reused.text()).toContain('"reason":"already-used"')
    expect(stored.get('changed')?.firstName).toBe('After')
    expect(stored.has('gone')).toBe(false)
    expect([...stored.values()].filter((u) => u.orgId === 'beta')).toHaveLength(2)
    // beta's fixture users come from the draws acme's came from: they get ids of their own.
    const state = await (await fetch(`${second.url}/__mock/state`)).json()
    for (const [records, key] of [
      [state.users, 'userId'],
      [state.certificates, 'certificateId'],
      [state.learningProgress, 'userId'],
    ] as const) {
      const ids = records.map((r: Record<string, string>) => r[key])
      expect(new Set(ids).size, key).toBe(ids.length)
    }
    expect(second.cli.stdout()).toMatch(/beta\s+beta-key\n/)
    // The file holds acme's key only as a hash: it still opens acme, but cannot be shown.
    expect(second.cli.stdout()).toMatch(/acme\s+\(no key known in clear\)\n/)
    expect((await identify(second.url, 'kept', 'Ada')).status).toBe(200) // the fault is gone
    const beta = await fetch(`${second.url}/api/v1/users/identify`, {
      method: 'POST',
      headers: { authorization: 'Bearer beta-key', 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'b-1', orgId: 'beta' }),
    })
    expect(beta.status).toBe(200)

    expect((await fetch(`${second.url}/__mock/reset`, { method: 'POST' })).status).toBe(204)
    await kill(second.cli)
    const third = await serve(path, [])
    const afterReset = await users(third.url)
    expect(afterReset.has('kept')).toBe(false)
    expect(afterReset.has('b-1')).toBe(false)
    // The reset went back to the data the second start was given: beta with its two users.
    expect([...afterReset.values()].map((u) => u.orgId)).toEqual(['beta', 'beta'])
    await kill(third.cli)

    // A key given for an organisation the file already has opens it, the old key still too; the
    // seed options only say what a reset goes back to, and change nothing the file holds.
    const fourth = await serve(path, [
      ...['--seed', '9', '--users', '5'],
      ...['--org', 'beta', '--api-key', 'another-key'],
    ])
    expect([...(await users(fourth.url)).values()]).toEqual([...afterReset.values()])
    expect(fourth.cli.stdout()).toMatch(/beta\s+another-key\n/)
    for (const apiKey of ['another-key', 'beta-key']) {
      const answer = await fetch(`${fourth.url}/api/v1/users/identify`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ id: `with-${apiKey}`, orgId: 'beta' }),
      })
      expect(answer.status, apiKey).toBe(200)
    }
    expect([...(await users(fourth.url)).values()].filter((u) => u.orgId === 'beta')).toHaveLength(
      4,
    )
    await kill(fourth.cli)
  }, 60_000)

  it('loses nothing it answered 200 when killed with SIGKILL mid-flight, 20 times over', async () => {
    const path = join(dir, 'crash.db')
    /** Every identify answered 200, by id, with the first name it set. */
    const acknowledged = new Map<string, string>()
    /** Identify calls cut off by the kill: each may or may not have been kept. */
    const unanswered = new Map<string, string>()
    // Twenty kills, and a last start to check the twentieth.
    for (let round = 0; round <= 20; round++) {
      const { cli, url } = await serve(path)
      const stored = await users(url)
      for (const [id, firstName] of acknowledged) {
        const kept = stored.get(id)?.firstName
        const expected = kept !== undefined && kept === unanswered.get(id) ? kept : firstName
        expect(kept, `round ${round}: ${id}`).toBe(expected)
        acknowledged.set(id, expected)
      }
      unanswered.clear()
      if (round === 20) {
        await kill(cli)
        break
      }
      // Half the calls create users, half change ones acknowledged before: both must survive.
      const toChange = [...acknowledged.keys()].slice(-40)
      let sent = 0
      let killed = false
      const worker = async (w: number) => {
        for (let i = 0; ; i++) {
          const changing = i % 2 === 1 && toChange.length > 0
          const id = changing ? (toChange.pop() as string) : `r${round}-w${w}-${i}`
          const firstName = `round-${round}-${i}`
          sent++
          try {
            const response = await identify(url, id, firstName)
            if (response.status !== 200) throw new Error(`identify answered ${response.status}`)
            acknowledged.set(id, firstName)
            await response.arrayBuffer()
          } catch (error) {
            if (!killed) throw error
            if (!acknowledged.has(id) || acknowledged.get(id) !== firstName)
              unanswered.set(id, firstName)
            return
          }
        }
      }
      const workers = Array.from({ length: 8 }, (_, w) => worker(w))
      while (sent < 30 + round * 3) await new Promise((resolve) => setTimeout(resolve, 5))
      killed = true
      await kill(cli)
      await Promise.all(workers)
    }
    expect(acknowledged.size).toBeGreaterThan(200)
  }, 180_000)

  it('keeps every one of many identify calls sent at once and answered 200, after a SIGKILL', async () => {
    const path = join(dir, 'together.db')
    const { cli, url } = await serve(path)
    // Sent together, so that they run while the disk is busy and are committed in groups.
    const ids = Array.from({ length: 200 }, (_, i) => `together-${i}`)
    const answers = await Promise.all(ids.map((id) => identify(url, id, `name-${id}`)))
    expect(answers.map((a) => a.status)).toEqual(ids.map(() => 200))
    await kill(cli)
    const again = await serve(path)
    const stored = await users(again.url)
    for (const id of ids) expect(stored.get(id)?.firstName, id).toBe(`name-${id}`)
    await kill(again.cli)
  }, 60_000)

  it('refuses a file of the old JSON-lines format with one line, exit 1, and leaves it as it was', async () => {
    const path = join(dir, 'old.db')
    writeFileSync(
      path,
      '{"format":"identify-api-mock-state","version":1,"state":{}}\n{"changes":[]}\n',
    )
    const before = readFileSync(path)
    const refused = runCli(['serve', '--port', '0', '--state-file', path])
    expect(await refused.exit).toEqual({ code: 1, signal: null })
    expect(refused.stderr()).toBe(
      `identify-api-mock: ${path} is not a state database (a JSON-lines state file of version 0.1 is not read any more): start with a new file (another --state-file path); it was left as it is\n`,
    )
    expect(readFileSync(path)).toEqual(before)
  }, 30_000)

  it('refuses a path it cannot write, and a directory, with one line each', async () => {
    const missing = join(dir, 'missing', 'state.db')
    await expectRefusal(
      ['serve', '--port', '0', '--state-file', missing],
      /^identify-api-mock: cannot use .*state\.db as a state file: its directory .*missing does not exist$/,
    )
    await expectRefusal(
      ['serve', '--port', '0', '--state-file', dir],
      /^identify-api-mock: .* is not a file$/,
    )
  }, 30_000)

  it('refuses a file another server has open, at once, and lets the next one in once it stops', async () => {
    const path = join(dir, 'shared.db')
    const first = await serve(path)
    await expectRefusal(
      ['serve', '--port', '0', '--state-file', path],
      /^identify-api-mock: .*shared\.db is in use by another server \(it holds its lock\): stop it, or choose another --state-file$/,
    )
    await kill(first.cli)
    const second = await serve(path)
    expect((await identify(second.url, 'after-lock', 'Ada')).status).toBe(200)
    await kill(second.cli)
  }, 30_000)

  it.skipIf(!canUnshare)(
    'holds the file across PID namespaces, and after a SIGKILL the next server finds every acknowledged write',
    async () => {
      const path = join(dir, 'namespaces.db')
      // Each server is pid 1 of a PID namespace of its own, as in two containers sharing a volume.
      const namespace = ['unshare', '--pid', '--fork', '--kill-child', '--mount-proc']
      const args = ['--state-file', path, '--orgs', '0', '--users', '2', '--org', 'acme']
      const first = await startCli([...args, '--api-key', key], namespace)
      running.add(first.cli)
      const refused = runCli(['serve', '--port', '0', ...args, '--api-key', key], namespace)
      expect((await refused.exit).code).toBe(1)
      expect(refused.stderr()).toMatch(/^identify-api-mock: .* is in use by another server .*\n$/)

      const acknowledged = new Map<string, string>()
      let killed = false
      const worker = async (w: number) => {
        for (let i = 0; !killed; i++) {
          const id = `ns-${w}-${i}`
          const answer = await identify(first.url, id, `name-${i}`).catch(() => undefined)
          if (answer?.status === 200) acknowledged.set(id, `name-${i}`)
        }
      }
      const workers = Array.from({ length: 4 }, (_, w) => worker(w))
      while (acknowledged.size < 50) await new Promise((resolve) => setTimeout(resolve, 5))
      // The server itself (unshare's child, the namespace's pid 1), killed mid-flight.
      const server = Number(
        readFileSync(`/proc/${first.cli.child.pid}/task/${first.cli.child.pid}/children`, 'utf8'),
      )
      process.kill(server, 'SIGKILL')
      killed = true
      await first.cli.exit
      running.delete(first.cli)
      await Promise.all(workers)

      const next = await startCli([...args, '--api-key', key], namespace)
      running.add(next.cli)
      const stored = await users(next.url)
      for (const [id, firstName] of acknowledged)
        expect(stored.get(id)?.firstName, id).toBe(firstName)
      await kill(next.cli)
    },
    60_000,
  )
})
