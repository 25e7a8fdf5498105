import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { startServer } from '../../src/server/server.ts'
import { codeBlocks } from '../../test/support/docs.ts'
import { python, pythonExamplePassed } from '../../test/support/python-example.ts'

/**
 * The Python example's own suite (pytest, a tenant per test, and a webhook receiver per test that
 * gets exactly its tenant's deliveries) run in four parallel workers (`pytest -n 4`, pytest-xdist)
 * against one standalone server, as a Python backend's CI runs it beside the server or its
 * container; with the coverage guide's pytest recipe loaded as a plugin, as it stands, which prints
 * what the run's clients met.
 */
const [coverageRecipe = ''] = codeBlocks(
  'docs/guides/coverage.md',
  '### pytest, or any other language',
  'python',
)
const here = fileURLToPath(new URL('.', import.meta.url))

describe.skipIf(python === undefined)(
  `a Python backend's tests${python ? '' : ' (skipped: no python3 with pytest and pytest-xdist here)'}`,
  () => {
    it('pass with pytest -n 4 against one server, a tenant per test', async () => {
      const server = await startServer({ port: 0 })
      const plugins = mkdtempSync(join(tmpdir(), 'pytest-plugins-'))
      writeFileSync(join(plugins, 'contract_coverage.py'), coverageRecipe)
      try {
        const { stdout } = await promisify(execFile)(
          python as string,
          ['-m', 'pytest', '-n', '4', '-q', '-p', 'no:cacheprovider', '-p', 'contract_coverage'],
          {
            cwd: here,
            // No __pycache__ left in the repository.
            env: {
              ...process.env,
              IDENTIFY_API_URL: server.url,
              IDENTIFY_API_MOCK_URL: server.url,
              PYTHONPATH: plugins,
              PYTHONDONTWRITEBYTECODE: '1',
            },
          },
        )
        expect(stdout).toMatch(pythonExamplePassed)
        // The recipe printed the run's coverage once, as the server counted it.
        const { met, total, items } = server.core.coverage()
        expect(stdout.match(/identify-api-mock: the clients met/g)).toHaveLength(1)
        expect(stdout).toContain(`the clients met ${met} of ${total} answers`)
        // What the suite proved of its client: each answer its tests put it through.
        expect(items.filter((item) => item.count > 0).map((item) => item.id)).toEqual([
          'identify.200.created',
          'identify.200.updated',
          'identify.500',
          'identify.401',
          'delete.200',
          'delete.404',
          'delete.500',
          'webView.redeemed',
          'webView.expired',
          'webhook.event.notifications.sent',
          'webhook.event.user.course.started',
          'webhook.delivery.first-attempt',
          'failure.identify-status-500',
          'failure.delete-status-500',
        ])
        // Every test removed its tenant: only the seeded organisations are left, and with them
        // every receiver's endpoint went (each was its tenant's: none of the mock's).
        expect(server.core.credentials.map((c) => c.orgId)).toEqual(['org-1', 'org-2'])
        expect(server.core.webhooks.list()).toEqual([])
      } finally {
        rmSync(plugins, { recursive: true, force: true })
        await server.close()
      }
    }, 120_000)
  },
)
