import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { expect, it } from 'vitest'

const root = fileURLToPath(new URL('../../', import.meta.url))

it('runs its spec files in jest workers on one shared server, a tenant each', async () => {
  const { stdout, stderr } = await promisify(execFile)(
    process.execPath,
    [
      '--experimental-vm-modules',
      'node_modules/jest/bin/jest.js',
      '--ci',
      '--maxWorkers',
      '2',
      '--config',
      'examples/jest-shared-server/jest.config.js',
    ],
    { cwd: root },
  )
  expect(stderr).toMatch(/PASS examples\/jest-shared-server\/tenant-1\.spec\.ts/)
  expect(stderr).toMatch(/PASS examples\/jest-shared-server\/tenant-2\.spec\.ts/)
  expect(stderr).toMatch(/PASS examples\/jest-shared-server\/webhooks\.spec\.ts/)
  expect(stderr).toMatch(/Tests: +6 passed, 6 total/)
  // globalTeardown's table of the whole run: a 500 and an update of identify, the 500's case,
  // and the webhooks' file's 2 event types delivered at once.
  expect(stdout).toMatch(/^identify-api-mock: the clients met 6 of \d+ answers the API may give$/m)
}, 120_000)
