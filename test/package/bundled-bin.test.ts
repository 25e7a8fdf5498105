import { execFile, spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { bundleInspectorScript } from '../../src/inspector/bundle.ts'
import { expectDeleted, expectIdentified } from '../support/expect-body.ts'

/**
 * The bin as `npm run build` makes it (esbuild.config.ts): one bundle behind a launcher that
 * turns on the compile cache, built here into a scratch directory and run as a user would.
 */
const repo = fileURLToPath(new URL('../..', import.meta.url))
const outDir = mkdtempSync(join(tmpdir(), 'identify-api-mock-bin-'))
let child: ReturnType<typeof spawn>
let url = ''
let key = ''

beforeAll(async () => {
  await promisify(execFile)(process.execPath, [join(repo, 'esbuild.config.ts')], {
    env: { ...process.env, BIN_OUT_DIR: outDir },
  })
  writeFileSync(join(outDir, 'package.json'), '{"type":"module"}')
  child = spawn(process.execPath, [join(outDir, 'cli.js'), 'serve', '--port', '0', '--json'], {
    env: { ...process.env, NODE_COMPILE_CACHE: join(outDir, 'cache') },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const facts = await new Promise<{ url: string; organisations: { apiKeys: string[] }[] }>(
    (resolve, reject) => {
      let out = ''
      child.stdout?.on('data', (chunk) => {
        out += chunk
        if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0] ?? ''))
      })
      child.once('exit', (code) => reject(new Error(`the bin exited with ${code}`)))
    },
  )
  url = facts.url
  key = facts.organisations[0]?.apiKeys[0] ?? ''
}, 60_000)

afterAll(() => {
  child?.kill('SIGKILL')
  rmSync(outDir, { recursive: true, force: true })
})

it('serves identify, the web view and delete from the bundle', async () => {
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' }
  const identified = await expectIdentified(
    await fetch(`${url}/api/v1/users/identify`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ id: 'bundled', orgId: 'org-1', data: { firstName: 'Ada' } }),
    }),
  )
  const page = await fetch(`${url}/webview?orgId=org-1&token=${identified.token}`)
  expect(page.status).toBe(200)
  expect(await page.text()).toContain('Ada')
  await expectDeleted(
    await fetch(`${url}/api/v1/users/org-1/bundled`, { method: 'DELETE', headers }),
    'bundled',
  )
})

it("serves the inspector page's script as bundled at build, with no esbuild to call", async () => {
  // The bin runs from a scratch directory, where `esbuild` (a devDependency) does not resolve.
  const res = await fetch(`${url}/__mock/inspector.js`)
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
  const script = await res.text()
  expect(script).toBe(await bundleInspectorScript())
  // The server's tables are written into it, not read at run time.
  expect(script).toContain('"/api/v1/users/identify"')
})
