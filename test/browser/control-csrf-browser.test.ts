import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { type Browser, chromium } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from '../../src/server/server.ts'
import { chromiumLaunchOptions } from '../support/chromium.ts'
import { expectIdentified } from '../support/expect-body.ts'

/**
 * The cross-site attack on the controls, as a real browser runs it: a page of another origin (a second local
 * server, on another port) submits a `text/plain` form to `/__mock/reset` and sends a `no-cors`
 * `fetch` to `/__mock/faults`. Neither may reach the mock.
 */

/** The attacker's page: a fault queued by fetch, then the reset by a form submitted by script. */
function attackPage(target: string): string {
  const fault = JSON.stringify({ operation: 'identify', status: 500 })
  return `<!doctype html><html><body>
<form method="POST" action="${target}/__mock/reset" enctype="text/plain">
<input type="hidden" name='{"x":"' value='"}'>
</form>
<script>
fetch(${JSON.stringify(`${target}/__mock/faults`)}, { method: 'POST', mode: 'no-cors', body: ${JSON.stringify(fault)} })
  .finally(function () { document.forms[0].submit(); });
</script>
</body></html>`
}

describe('a page of another origin against the control endpoints', () => {
  let browser: Browser
  let mock: RunningServer
  let attacker: Server
  let attackerUrl = ''

  beforeAll(async () => {
    mock = await startServer({ port: 0 })
    attacker = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      res.end(attackPage(mock.url))
    })
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve))
    attackerUrl = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`
    browser = await chromium.launch(chromiumLaunchOptions)
  }, 30_000)
  afterAll(async () => {
    await browser?.close()
    await new Promise((resolve) => attacker?.close(resolve))
    await mock?.close()
  })

  it('cannot reset the mock with a text/plain form, nor queue a fault with fetch', async () => {
    const key = mock.core.credentials[0]?.apiKeys[0] ?? ''
    const identify = () =>
      fetch(`${mock.url}/api/v1/users/identify`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ id: 'kept-across-the-attack', orgId: 'org-1' }),
      })
    await expectIdentified(await identify())

    const context = await browser.newContext()
    const page = await context.newPage()
    const faultAnswer = page.waitForResponse((r) => r.url().endsWith('/__mock/faults'))
    const resetAnswer = page.waitForResponse((r) => r.url().endsWith('/__mock/reset'))
    await page.goto(attackerUrl)
    expect((await faultAnswer).status()).toBe(403)
    const reset = await resetAnswer
    // The browser did send the form (the attack ran), and the mock refused it.
    expect(reset.request().method()).toBe('POST')
    expect(reset.request().headers()['content-type']).toBe('text/plain')
    expect(reset.status()).toBe(403)
    await context.close()

    const state = await mock.core.state()
    expect(state.users.some((u) => u.id === 'kept-across-the-attack')).toBe(true)
    // No fault was queued: the next identify succeeds.
    await expectIdentified(await identify())
  }, 30_000)
})
