import { execFile, spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { startServer } from '../../src/server/server.ts'

/**
 * The Python example's own tests (`python3 -m unittest`, standard library only) against the
 * standalone server, as a Python backend's CI runs them beside the server or its container.
 */
const python = spawnSync('python3', ['--version']).status === 0
const here = fileURLToPath(new URL('.', import.meta.url))

describe.skipIf(!python)(
  `a Python backend's tests${python ? '' : ' (skipped: no python3 here)'}`,
  () => {
    it('pass against the server', async () => {
      const server = await startServer({
        port: 0,
        organisations: [{ orgId: 'acme', apiKeys: ['acme-test-key'] }],
      })
      try {
        const { stderr } = await promisify(execFile)('python3', ['-m', 'unittest', '-v'], {
          cwd: here,
          env: {
            ...process.env,
            IDENTIFY_API_URL: server.url,
            IDENTIFY_API_KEY: 'acme-test-key',
            IDENTIFY_ORG_ID: 'acme',
            // No __pycache__ left in the repository.
            PYTHONDONTWRITEBYTECODE: '1',
          },
        })
        expect(stderr).toMatch(/^Ran 5 tests in /m)
        expect(stderr).toMatch(/^OK$/m)
      } finally {
        await server.close()
      }
    }, 60_000)
  },
)
