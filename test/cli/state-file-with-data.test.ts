import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type CliProcess, expectRefusal, startCli } from '../support/cli-process.ts'

/**
 * `--data` with a state file that exists: the file's organisations the state lacks are added, with
 * their users; those it holds keep their records as the state has them (a restart never undoes
 * what the mock answered). It used to be ignored without a word.
 */

let dir = ''
const running = new Set<CliProcess>()
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'state-file-with-data-'))
})
afterAll(() => {
  for (const cli of running) cli.child.kill('SIGKILL')
  rmSync(dir, { recursive: true, force: true })
})

const org = (orgId: string) => ({ orgId, apiKeys: [`key-of-${orgId}`] })
const user = (orgId: string, id: string, userId?: string) => ({
  orgId,
  id,
  registrationStatus: 'archived',
  ...(userId === undefined ? {} : { userId }),
})

function dataFile(name: string, content: unknown): string {
  const path = join(dir, name)
  writeFileSync(path, JSON.stringify(content))
  return path
}

async function serve(stateFile: string, data: string) {
  const started = await startCli(['--state-file', stateFile, '--orgs', '0', '--data', data])
  running.add(started.cli)
  return started
}

async function stop(cli: CliProcess) {
  cli.child.kill('SIGKILL')
  await cli.exit
  running.delete(cli)
}

async function usersOf(url: string): Promise<string[]> {
  const state = (await (await fetch(`${url}/__mock/state`)).json()) as {
    users: { orgId: string; id: string }[]
  }
  return state.users.map((u) => `${u.orgId}/${u.id}`).sort()
}

describe('serve --data with an existing --state-file', { timeout: 40_000 }, () => {
  it('adds the organisations the state lacks and keeps those it holds as they are', async () => {
    const stateFile = join(dir, 'kept.db')
    const first = await serve(
      stateFile,
      dataFile('first.json', { organisations: [org('alpha')], users: [user('alpha', 'ada')] }),
    )
    const deleted = await fetch(`${first.url}/api/v1/users/alpha/ada`, {
      method: 'DELETE',
      headers: { authorization: 'Bearer key-of-alpha' },
    })
    expect(deleted.status).toBe(200)
    await stop(first.cli)

    const second = await serve(
      stateFile,
      dataFile('second.json', {
        organisations: [org('alpha'), org('beta')],
        users: [user('alpha', 'ada'), user('alpha', 'new-in-alpha'), user('beta', 'bo')],
      }),
    )
    expect(await usersOf(second.url)).toEqual(['beta/bo'])
    const identify = await fetch(`${second.url}/api/v1/users/identify`, {
      method: 'POST',
      headers: { authorization: 'Bearer key-of-beta', 'content-type': 'application/json' },
      body: JSON.stringify({ orgId: 'beta', id: 'bo' }),
    })
    expect(
      ((await identify.json()) as { data: { registrationStatus: string } }).data,
    ).toMatchObject({ registrationStatus: 'archived' })
    await stop(second.cli)
  })

  it('refuses to start, with one line, when the file gives a userId a user of the state holds', async () => {
    const stateFile = join(dir, 'held.db')
    const first = await serve(
      stateFile,
      dataFile('held-first.json', {
        organisations: [org('alpha')],
        users: [user('alpha', 'ada', 'taken-user-id')],
      }),
    )
    await stop(first.cli)
    const clash = dataFile('held-second.json', {
      organisations: [org('alpha'), org('gamma')],
      users: [user('gamma', 'gus', 'taken-user-id')],
    })
    await expectRefusal(
      ['serve', '--port', '0', '--orgs', '0', '--state-file', stateFile, '--data', clash],
      /^identify-api-mock: .*users\[0\]\.userId: a user of the state file has this userId/,
    )
  })
})
