import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { type CliProcess, runCli, waitForOutput } from '../../test/support/cli-process.ts'

const run = promisify(execFile)
const script = fileURLToPath(new URL('./smoke.ts', import.meta.url))

let cli: CliProcess
let facts: { url: string; organisations: Array<{ orgId: string; apiKeys: string[] }> }

beforeAll(async () => {
  cli = runCli(['serve', '--port', '0', '--json'])
  const [line = ''] = await waitForOutput(cli, /^\{.*\}$/m)
  facts = JSON.parse(line)
}, 20_000)
afterAll(() => {
  cli.child.kill('SIGTERM')
})

it('passes against the standalone server it was pointed at', async () => {
  const [org] = facts.organisations
  const { stdout } = await run(process.execPath, ['--import', 'tsx', script], {
    env: {
      ...process.env,
      IDENTIFY_API_URL: facts.url,
      IDENTIFY_API_KEY: org?.apiKeys[0] ?? '',
      IDENTIFY_ORG_ID: org?.orgId ?? '',
    },
  })
  expect(stdout.trim().split('\n')).toEqual([
    'ok   identify answers 200',
    'ok   identify returns a sign-in token',
    'ok   delete answers 200 with deleted: true',
    'ok   a second delete answers 404 User not found',
    'ok   the mock is reset for the next job',
  ])
  const journal = await (await fetch(`${facts.url}/__mock/requests`)).json()
  expect(journal).toEqual([])
  // The reset kept the run's coverage: the answers the job met, read as any language reads them.
  const { items } = await (await fetch(`${facts.url}/__mock/coverage`)).json()
  const met = items.filter((item: { count: number }) => item.count > 0)
  expect(met.map((item: { id: string }) => item.id)).toEqual([
    'identify.200.created',
    'delete.200',
    'delete.404',
  ])
})

it('fails, with exit code 1, against a key the server does not know', async () => {
  const result = await run(process.execPath, ['--import', 'tsx', script], {
    env: { ...process.env, IDENTIFY_API_URL: facts.url, IDENTIFY_API_KEY: 'wrong' },
  }).catch((error: { code: number; stderr: string }) => error)
  expect(result).toMatchObject({ code: 1, stderr: 'FAIL identify answers 200\n' })
})
