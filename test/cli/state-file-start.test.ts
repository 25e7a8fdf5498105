import {
  closeSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { afterAll, expect, it } from 'vitest'
import { type CliProcess, runCli, startCli, waitForOutput } from '../support/cli-process.ts'

/**
 * A state file tells the truth at start: a first start stopped while it wrote the seed leaves
 * nothing a later start mistakes for a state (it loaded as an empty mock: every seeded key 401,
 * no warning), and a damaged file is refused with one line rather than answering every write 500.
 */

const dir = mkdtempSync(join(tmpdir(), 'state-file-start-'))
const running = new Set<CliProcess>()
afterAll(() => {
  for (const cli of running) cli.child.kill('SIGKILL')
  rmSync(dir, { recursive: true, force: true })
})

/** The seeded key of org-1 answers an identify: 200 once the seed is there. */
async function identifyStatus(url: string, key: string) {
  const answer = await fetch(`${url}/api/v1/users/identify`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id: 'after', orgId: 'org-1' }),
  })
  return answer.status
}

it('a first start killed while it writes the seed leaves no state: the next start says so and writes the whole seed', async () => {
  const path = join(dir, 'interrupted.db')
  // A seed large enough to take a while: killed as soon as the file has its table (the
  // write-ahead log holds the commits that made it: its header and three pages at least).
  const args = ['serve', '--port', '0', '--state-file', path, '--orgs', '2', '--users', '40000']
  const first = runCli(args)
  running.add(first)
  const walBytes = () => statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0
  while (walBytes() < 32 + 3 * (24 + 4096)) await new Promise((resolve) => setTimeout(resolve, 5))
  first.child.kill('SIGKILL')
  await first.exit
  running.delete(first)
  expect(first.stdout()).not.toMatch(/listening on/)

  const again = runCli([
    'serve',
    '--port',
    '0',
    '--state-file',
    path,
    '--orgs',
    '2',
    '--users',
    '2',
  ])
  running.add(again)
  const [, url = ''] = await waitForOutput(again, /listening on (http:\/\/\S+)/, {
    timeoutMs: 60_000,
  })
  expect(again.stderr()).toBe(
    `identify-api-mock: ${path} holds no complete state: a first start was stopped while it wrote the seed; it starts from the seed now\n`,
  )
  const key = again.stdout().match(/org-1\s+(sk_test_\w+)/)?.[1] ?? ''
  expect(await identifyStatus(url, key)).toBe(200)
  const state = (await (await fetch(`${url}/__mock/state`)).json()) as { users: unknown[] }
  expect(state.users.length).toBeGreaterThan(2)
  again.child.kill('SIGKILL')
  await again.exit
  running.delete(again)

  // Now complete: a third start loads it, and says nothing.
  const third = await startCli(['--state-file', path, '--orgs', '2', '--users', '2'])
  running.add(third.cli)
  expect(await identifyStatus(third.url, key)).toBe(200)
  expect(third.cli.stderr()).toBe('')
  third.cli.child.kill('SIGKILL')
}, 120_000)

it('refuses a file with a damaged index page in one line that names it, and leaves it as it is', async () => {
  const path = join(dir, 'damaged.db')
  const first = await startCli(['--state-file', path, '--users', '200'])
  running.add(first.cli)
  first.cli.child.kill('SIGTERM')
  await first.cli.exit
  running.delete(first.cli)
  // The page of the unique index on (collection, key): its records are still readable.
  const db = new DatabaseSync(path)
  const { rootpage } = db
    .prepare("SELECT rootpage FROM sqlite_schema WHERE type = 'index'")
    .get() as {
    rootpage: number
  }
  const { page_size: pageSize } = db.prepare('PRAGMA page_size').get() as { page_size: number }
  db.close()
  const fd = openSync(path, 'r+')
  writeSync(
    fd,
    Buffer.alloc(pageSize - 200, 0xa5),
    0,
    pageSize - 200,
    (rootpage - 1) * pageSize + 100,
  )
  closeSync(fd)
  const before = readFileSync(path)

  const refused = runCli(['serve', '--port', '0', '--state-file', path])
  expect(await refused.exit).toEqual({ code: 1, signal: null })
  expect(refused.stdout()).toBe('')
  expect(refused.stderr()).toMatch(
    new RegExp(
      `^identify-api-mock: ${path.replaceAll('.', '\\.')} is damaged \\(SQLite's check found: [^\\n]+\\): it was left as it is; restore it from a copy, or start with a new --state-file\\n$`,
    ),
  )
  expect(readFileSync(path)).toEqual(before)
}, 60_000)
