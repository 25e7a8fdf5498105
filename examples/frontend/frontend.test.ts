import { readFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { type Browser, chromium } from 'playwright-core'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { chromiumLaunchOptions } from '../../test/support/chromium.ts'

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url))

let server: Server
let browser: Browser
let origin = ''

beforeAll(async () => {
  const bundle = await build({
    entryPoints: [here('./main.ts')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    // Inside the repository the package's own name resolves to its sources (package.json).
    conditions: ['@identify-api-mock/source'],
    logLevel: 'silent',
  })
  const files: Record<string, { type: string; body: string | Uint8Array }> = {
    '/': { type: 'text/html', body: await readFile(here('./index.html'), 'utf8') },
    '/main.js': { type: 'text/javascript', body: bundle.outputFiles[0]?.contents ?? '' },
    '/mockServiceWorker.js': {
      type: 'text/javascript',
      body: await readFile(fileURLToPath(import.meta.resolve('msw/mockServiceWorker.js')), 'utf8'),
    },
  }
  server = createServer((req, res) => {
    const file = files[req.url ?? '']
    if (!file) return void res.writeHead(404).end()
    res.writeHead(200, { 'content-type': file.type }).end(file.body)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  browser = await chromium.launch(chromiumLaunchOptions)
}, 60_000)

afterAll(async () => {
  await browser?.close()
  server?.close()
})

it('runs identify and delete through setupWorker in a real browser', async () => {
  const page = await browser.newPage()
  const errors: string[] = []
  page.on('pageerror', (error) => errors.push(error.message))
  await page.goto(origin)
  await page.waitForFunction(
    () => document.querySelector('#status')?.textContent !== 'starting the mock…',
    null,
    {
      timeout: 20_000,
    },
  )
  expect(errors).toEqual([])
  expect(await page.textContent('#status')).toBe('done')
  expect((await page.textContent('#log'))?.trim().split('\n')).toEqual([
    'identify 200 Bea 64',
    'delete 200 {"id":"browser-user","deleted":true}',
    'delete 404 User not found',
    'api.fetch 404, 3 delete calls',
    'met identify.200.created ×1, delete.200 ×1, delete.404 ×2',
  ])
}, 30_000)
