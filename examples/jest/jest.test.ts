import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { expect, it } from 'vitest'

const root = fileURLToPath(new URL('../../', import.meta.url))

it('passes under jest 30 in ESM: setupServer in jsdom, api.fetch in node', async () => {
  const { stderr } = await promisify(execFile)(
    process.execPath,
    [
      '--experimental-vm-modules',
      'node_modules/jest/bin/jest.js',
      '--ci',
      '--config',
      'examples/jest/jest.config.js',
    ],
    { cwd: root },
  )
  expect(stderr).toMatch(/PASS examples\/jest\/setup-server\.spec\.ts/)
  expect(stderr).toMatch(/PASS examples\/jest\/mock-fetch\.spec\.ts/)
  expect(stderr).toMatch(/Tests: +2 passed, 2 total/)
}, 60_000)
