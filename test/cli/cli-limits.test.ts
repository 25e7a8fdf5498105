import { afterAll, describe, expect, it } from 'vitest'
import { type CliProcess, expectRefusal, startCli, waitForOutput } from '../support/cli-process.ts'

const running: CliProcess[] = []
afterAll(() => {
  for (const cli of running) cli.child.kill('SIGKILL')
})

describe('serve: the limits flags', () => {
  it('--max-users: an identify past it answers 500 and prints one line naming the flag', async () => {
    // The default data: two organisations of eight users each.
    const { cli, url } = await startCli(['--max-users', '17'])
    running.push(cli)
    const [, key] = cli.stdout().match(/org-1\s+(\S+)/) ?? []
    const identify = (id: string) =>
      fetch(`${url}/api/v1/users/identify`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ id, orgId: 'org-1' }),
      })
    expect((await identify('seventeenth')).status).toBe(200)
    const refused = await identify('eighteenth')
    expect(refused.status).toBe(500)
    expect(await refused.json()).toEqual({ code: 500, message: 'Internal server error' })
    await waitForOutput(cli, /\n/, { stream: 'stderr' })
    expect(cli.stderr()).toBe(
      'identify-api-mock: identify refused a new user: the mock holds 17 users, its limit (raise it with maxUsers or --max-users)\n',
    )
  })

  it('refuses a limit that is not a whole number of 1 or more, with one line', async () => {
    for (const flag of [
      '--max-users',
      '--max-groups-per-org',
      '--max-tokens-per-user',
      '--session-ttl',
    ]) {
      await expectRefusal(
        ['serve', flag, '0'],
        new RegExp(`${flag}.*expected a whole number of 1 or more`),
      )
    }
  }, 30_000)
})
