import { afterEach, describe, expect, it } from 'vitest'
import { type CliProcess, runCli, waitForOutput } from '../support/cli-process.ts'

/**
 * A variable under `IDENTIFY_API_MOCK_` that no option reads is named in one warning line, with the
 * variable it most likely meant when one is close. It used to be ignored without a word, so a
 * misspelt `IDENTIFY_API_MOCK_CONTROL_TOKN` left the controls open.
 */

const started: CliProcess[] = []
afterEach(() => {
  for (const cli of started.splice(0)) cli.child.kill('SIGKILL')
})

/** Starts `serve --port 0` with `env`; its standard error once it listens. */
async function stderrOfServe(env: Record<string, string>): Promise<string[]> {
  const cli = runCli(['serve', '--port', '0'], [], env)
  started.push(cli)
  await waitForOutput(cli, /listening on http:\/\/\S+/)
  return cli
    .stderr()
    .split('\n')
    .filter((line) => line !== '')
}

describe('IDENTIFY_API_MOCK_ variables no option reads', { timeout: 30_000 }, () => {
  it('are named in a warning, with the close one they meant, and the server still starts', async () => {
    const lines = await stderrOfServe({
      IDENTIFY_API_MOCK_CONTROL_TOKN: 'secret-token',
      IDENTIFY_API_MOCK_VERIFY_ORGG: 'acme',
      IDENTIFY_API_MOCK_SOMETHING_ELSE_ENTIRELY: '1',
    })
    expect(lines).toEqual([
      'identify-api-mock: warning: IDENTIFY_API_MOCK_CONTROL_TOKN is set, but no option reads it (did you mean IDENTIFY_API_MOCK_CONTROL_TOKEN?)',
      'identify-api-mock: warning: IDENTIFY_API_MOCK_SOMETHING_ELSE_ENTIRELY is set, but no option reads it',
      'identify-api-mock: warning: IDENTIFY_API_MOCK_VERIFY_ORGG is set, but no option reads it (did you mean IDENTIFY_API_MOCK_VERIFY_ORG?)',
    ])
    expect(lines.join('\n')).not.toContain('secret-token')
  })

  it('leave the variables options read, and their values, without a word', async () => {
    expect(
      await stderrOfServe({ IDENTIFY_API_MOCK_SEED: '7', IDENTIFY_API_MOCK_USERS: '3' }),
    ).toEqual([])
  })
})
