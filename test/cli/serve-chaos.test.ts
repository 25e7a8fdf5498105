import { afterEach, describe, expect, it } from 'vitest'
import { connectMockApi } from '../../src/client/connect-mock-api.ts'
import { type CliProcess, expectRefusal, runCli, waitForOutput } from '../support/cli-process.ts'

/**
 * `serve --chaos RATE` for a development server: set by the flag or its variable, its seed
 * printed in the banner (drawn when not given) and shown by `GET /__mock/chaos`; a bad rate
 * refused at start.
 */

const started: CliProcess[] = []
afterEach(() => {
  for (const cli of started.splice(0)) cli.child.kill('SIGKILL')
})

async function serveWith(args: string[], env: Record<string, string> = {}) {
  const cli = runCli(['serve', '--port', '0', ...args], [], env)
  started.push(cli)
  const [, url = ''] = (await waitForOutput(cli, /listening on (http:\/\/\S+)/)) as string[]
  await waitForOutput(cli, /Stop with Ctrl\+C/)
  return { url, stdout: cli.stdout }
}

describe('identify-api-mock serve --chaos', () => {
  it('runs the mock’s chaos from the flags, and says its seed in the banner', async () => {
    const { url, stdout } = await serveWith(['--chaos', '0.05', '--chaos-seed', '1234'])
    expect(await connectMockApi(url).chaos()).toEqual({
      rate: 0.05,
      cases: expect.arrayContaining(['identify-reset', 'delete-slow']),
      seed: 1234,
      drawn: 0,
      failed: 0,
    })
    expect(stdout()).toContain(
      'Chaos: 5 % of calls meet a failure case, seed 1234 (replay with --chaos-seed 1234; GET /__mock/chaos).',
    )
  }, 30_000)

  it('reads IDENTIFY_API_MOCK_CHAOS, a seed drawn and printed when none is given', async () => {
    const { url, stdout } = await serveWith([], {
      IDENTIFY_API_MOCK_CHAOS: '0.5',
      IDENTIFY_API_MOCK_CHAOS_CASES: 'delete-reset,delete-empty',
    })
    const chaos = await connectMockApi(url).chaos()
    expect(chaos).toMatchObject({ rate: 0.5, cases: ['delete-reset', 'delete-empty'] })
    expect(stdout()).toContain(`seed ${chaos?.seed} (replay with --chaos-seed ${chaos?.seed}`)
  }, 30_000)

  it('refuses a rate outside [0, 1] and an unknown case at start', async () => {
    await expectRefusal(
      ['serve', '--chaos', '1.5'],
      /--chaos <rate>' argument '1.5' is invalid. expected a rate from 0 to 1/,
    )
    await expectRefusal(['serve', '--chaos', '0.1', '--chaos-cases', 'delete-nope'], /delete-nope/)
  }, 30_000)
})
