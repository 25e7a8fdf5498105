import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { expect, it } from 'vitest'

const root = fileURLToPath(new URL('../../', import.meta.url))

it('runs its spec files in parallel workers on one shared server, a tenant each', async () => {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      'node_modules/vitest/vitest.mjs',
      'run',
      '--config',
      'examples/shared-server/vitest.config.ts',
      '--maxWorkers',
      '2',
    ],
    { cwd: root, env: { ...process.env, NO_COLOR: '1' } },
  )
  expect(stdout).toMatch(/Test Files +5 passed \(5\)/)
  expect(stdout).toMatch(/Tests +39 passed \(39\)/)
  // The server's coverage of the whole run, every file's tenant: 10 shapes, 5 identify and 3
  // delete answers, 13 failure cases (the 12 of failure-cases.spec.ts among them), and the
  // webhooks' file's 2 event types delivered at once.
  expect(stdout).toMatch(/^identify-api-mock: the clients met 34 of \d+ answers the API may give$/m)
  expect(stdout).toMatch(/^ {2}answer shapes +10\/10 +100 %$/m)
  expect(stdout).toMatch(/^ {2}failures +13\/40 +33 %$/m)
  expect(stdout).toMatch(/^ {2}webhooks +3\/5 +60 %$/m)
}, 120_000)
