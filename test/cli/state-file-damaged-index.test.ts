import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { afterAll, expect, it } from 'vitest'
import { type CliProcess, runCli, startCli } from '../support/cli-process.ts'

/**
 * A state file whose key index has one damaged entry is never served on: SQLite's quick check does
 * not compare an index with its table, so the server started, an identify wrote a second row of the
 * user, an acknowledged delete removed only that one, and the next start brought the user back.
 * A start now rebuilds such an index from the rows (one line on stderr), or refuses the file in
 * one line when the rows themselves cannot be indexed (two rows of one key).
 */

const dir = mkdtempSync(join(tmpdir(), 'state-file-index-'))
const running = new Set<CliProcess>()
afterAll(() => {
  for (const cli of running) cli.child.kill('SIGKILL')
  rmSync(dir, { recursive: true, force: true })
})

const key = 'sk_test_damaged0123456789abcdefgh'
const serveArgs = (path: string) => [
  '--state-file',
  path,
  '--orgs',
  '0',
  '--org',
  'acme',
  '--api-key',
  key,
  '--users',
  '0',
]

async function serve(path: string) {
  const started = await startCli(serveArgs(path))
  running.add(started.cli)
  return started
}

async function stop(cli: CliProcess) {
  cli.child.kill('SIGTERM')
  await cli.exit
  running.delete(cli)
}

async function call(url: string, method: string, path: string, body?: unknown) {
  const answer = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  })
  await answer.arrayBuffer()
  return answer.status
}

/**
 * Changes one byte of the index entry of the one user: its key's last character (users are keyed
 * by `userId`), in the page of the unique index on (collection, key), found by the index's root
 * page. The file stays well formed (SQLite's quick check finds nothing): only the entry no longer
 * matches its row. Gives the user's key.
 */
function damageIndexEntry(path: string): string {
  const db = new DatabaseSync(path)
  const { rootpage } = db
    .prepare("SELECT rootpage FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'records'")
    .get() as { rootpage: number }
  const { page_size: pageSize } = db.prepare('PRAGMA page_size').get() as { page_size: number }
  const { key: userKey } = db
    .prepare("SELECT key FROM records WHERE collection = 'users'")
    .get() as { key: string }
  expect(db.prepare('PRAGMA quick_check').get()).toEqual({ quick_check: 'ok' })
  db.close()
  const bytes = readFileSync(path)
  const start = (rootpage - 1) * pageSize
  const page = bytes.subarray(start, start + pageSize)
  const entry = Buffer.from(`users${userKey}`)
  const at = page.indexOf(entry)
  expect(at).toBeGreaterThan(0)
  expect(page.indexOf(entry, at + 1)).toBe(-1)
  // The last character one higher: the entry still sorts where it is, and no row has its key.
  page[at + entry.length - 1] = (page[at + entry.length - 1] as number) + 1
  writeFileSync(path, bytes)
  const check = new DatabaseSync(path)
  expect(check.prepare('PRAGMA quick_check').get()).toEqual({ quick_check: 'ok' })
  check.close()
  return userKey
}

it('rebuilds a damaged index entry at start: an acknowledged delete never comes back', async () => {
  const path = join(dir, 'entry.db')
  const first = await serve(path)
  expect(
    await call(first.url, 'POST', '/api/v1/users/identify', { id: 'ada', orgId: 'acme' }),
  ).toBe(200)
  await stop(first.cli)
  damageIndexEntry(path)

  const second = await serve(path)
  expect(second.cli.stderr()).toMatch(
    new RegExp(
      `identify-api-mock: ${path.replaceAll('.', '\\.')} had index entries that did not match its records \\(SQLite's full check\\): the index was rebuilt from the records before anything was read\\n`,
    ),
  )
  expect(
    await call(second.url, 'POST', '/api/v1/users/identify', { id: 'ada', orgId: 'acme' }),
  ).toBe(200)
  expect(await call(second.url, 'DELETE', '/api/v1/users/acme/ada')).toBe(200)
  await stop(second.cli)

  const db = new DatabaseSync(path)
  expect(db.prepare('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' })
  expect(db.prepare("SELECT count(*) AS n FROM records WHERE collection = 'users'").get()).toEqual({
    n: 0,
  })
  db.close()
  const third = await serve(path)
  expect(third.cli.stderr()).toBe('')
  expect(await call(third.url, 'DELETE', '/api/v1/users/acme/ada')).toBe(404)
  await stop(third.cli)
}, 120_000)

it('refuses in one line, leaving it as it is, a file whose rows cannot be indexed again', async () => {
  const path = join(dir, 'twice.db')
  const first = await serve(path)
  expect(
    await call(first.url, 'POST', '/api/v1/users/identify', { id: 'ada', orgId: 'acme' }),
  ).toBe(200)
  await stop(first.cli)
  const userKey = damageIndexEntry(path)
  // What a server on the damaged index did: a write of the user added a second row of its key.
  const db = new DatabaseSync(path)
  const { json } = db.prepare("SELECT json FROM records WHERE collection = 'users'").get() as {
    json: string
  }
  db.prepare(
    'INSERT INTO records (collection, key, json) VALUES (?, ?, ?) ON CONFLICT (collection, key) DO UPDATE SET json = excluded.json',
  ).run('users', userKey, json)
  expect(db.prepare("SELECT count(*) AS n FROM records WHERE collection = 'users'").get()).toEqual({
    n: 2,
  })
  db.close()
  const before = readFileSync(path)

  const refused = runCli(['serve', '--port', '0', ...serveArgs(path)])
  running.add(refused)
  expect(await refused.exit).toEqual({ code: 1, signal: null })
  running.delete(refused)
  expect(refused.stdout()).toBe('')
  expect(refused.stderr()).toMatch(
    new RegExp(
      `^identify-api-mock: ${path.replaceAll('.', '\\.')} is damaged \\(SQLite's check found: [^\\n]+\\): it was left as it is; restore it from a copy, or start with a new --state-file\\n$`,
    ),
  )
  expect(readFileSync(path)).toEqual(before)
}, 120_000)
