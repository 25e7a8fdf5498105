import { afterEach, describe, expect, it } from 'vitest'
import { type CliProcess, expectRefusal, runCli, waitForOutput } from '../support/cli-process.ts'

/** `serve --shapes` and its variable set the whole mock's answer shapes; a bad value is refused. */

const started: CliProcess[] = []
afterEach(() => {
  for (const cli of started.splice(0)) cli.child.kill('SIGKILL')
})

async function serveWith(args: string[], env: Record<string, string> = {}) {
  const cli = runCli(['serve', '--port', '0', '--json', ...args], [], env)
  started.push(cli)
  const [line = ''] = await waitForOutput(cli, /^\{.*\}$/m)
  const { url } = JSON.parse(line) as { url: string }
  const listed = await (await fetch(`${url}/__mock/organisations`)).json()
  return listed.organisations.map((org: { shapes: string }) => org.shapes)
}

describe('identify-api-mock serve --shapes', () => {
  it('sets every organisation without its own setting, from the flag or its variable', async () => {
    expect(await serveWith(['--shapes', 'varied'])).toEqual(['varied', 'varied'])
    expect(await serveWith([], { IDENTIFY_API_MOCK_SHAPES: 'nulls' })).toEqual(['nulls', 'nulls'])
    expect(await serveWith([])).toEqual(['full', 'full'])
  }, 60_000)

  it('refuses a mode or case the mock does not have, in one line', async () => {
    await expectRefusal(
      ['serve', '--shapes', 'sideways'],
      /^identify-api-mock: --shapes Invalid option: expected one of "full"\|"varied"\|"nulls"/,
    )
  }, 30_000)
})
