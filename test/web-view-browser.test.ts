import { mkdirSync } from 'node:fs'
import { type Browser, type BrowserContext, chromium } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from '../src/server/server.ts'
import { chromiumLaunchOptions } from './support/chromium.ts'
import { expectIdentified } from './support/expect-body.ts'

/** Where the browser test leaves a picture of the signed-in page (named in the README). */
const screenshotPath = 'test-results/webview-signed-in.png'

declare global {
  interface Window {
    appMessages: unknown[]
  }
}

/** A browser context as an app embeds the web view: React Native's bridge, or a plain window. */
async function appContext(
  browser: Browser,
  bridge: 'react-native' | 'window',
): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 420, height: 640 } })
  await context.addInitScript((kind) => {
    window.appMessages = []
    if (kind === 'react-native') {
      Object.assign(window, {
        ReactNativeWebView: { postMessage: (m: string) => window.appMessages.push(JSON.parse(m)) },
      })
    } else {
      window.addEventListener('message', (event) => window.appMessages.push(event.data))
    }
  }, bridge)
  return context
}

describe('the web view in a real browser', () => {
  let browser: Browser
  let server: RunningServer
  let now = new Date('2026-05-04T10:00:00Z')
  let key = ''

  beforeAll(async () => {
    server = await startServer({ port: 0, now: () => now, tokenTtlSeconds: 120 })
    key = server.core.credentials[0]?.apiKeys[0] ?? ''
    browser = await chromium.launch(chromiumLaunchOptions)
  }, 30_000)
  afterAll(async () => {
    await browser?.close()
    await server?.close()
  })

  async function identify(id: string, firstName: string) {
    const res = await fetch(`${server.url}/api/v1/users/identify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id, orgId: 'org-1', data: { firstName, lastName: 'Hopper' } }),
    })
    return (await expectIdentified(res)).token
  }
  const webViewUrl = (token?: string) =>
    `${server.url}/webview?${new URLSearchParams({ orgId: 'org-1', path: '/learning', webview: 'true', ...(token && { token }) })}`

  it('signs in, keeps the session on reload, and posts close', async () => {
    const state = await server.core.state()
    const learner = state.users.find(
      (u) =>
        u.orgId === 'org-1' &&
        state.learningProgress.some((p) => p.userId === u.userId && !p.completedAt),
    )
    const token = await identify(learner?.id ?? 'grace', 'Grace')
    const context = await appContext(browser, 'react-native')
    const page = await context.newPage()
    const response = await page.goto(webViewUrl(token))
    expect(response?.status()).toBe(200)
    expect(await page.locator('#learner').textContent()).toBe('Grace Hopper')
    expect(await page.locator('#path').textContent()).toBe('/learning')
    expect(await page.locator('.badge').textContent()).toBe('In progress')
    mkdirSync('test-results', { recursive: true })
    await page.screenshot({ path: screenshotPath, fullPage: true })

    const reload = await page.goto(webViewUrl())
    expect(reload?.status()).toBe(200)
    expect(await page.locator('#learner').textContent()).toBe('Grace Hopper')

    await page.click('#close')
    await page.waitForFunction(() => window.appMessages.length > 0)
    expect(await page.evaluate(() => window.appMessages)).toEqual([{ type: 'webview:close' }])
    await context.close()
  }, 30_000)

  it('asks the app for a new token when a used token is opened in a fresh context', async () => {
    const token = await identify('reuse', 'Reuse')
    const first = await appContext(browser, 'react-native')
    expect((await (await first.newPage()).goto(webViewUrl(token)))?.status()).toBe(200)
    await first.close()

    const fresh = await appContext(browser, 'window')
    const page = await fresh.newPage()
    expect((await page.goto(webViewUrl(token)))?.status()).toBe(401)
    await page.waitForFunction(() => window.appMessages.length > 0)
    expect(await page.evaluate(() => window.appMessages)).toEqual([
      { type: 'webview:session-refresh', reason: 'already-used' },
    ])
    await fresh.close()
  }, 30_000)

  it('asks the app for a new token once the clock passes the TTL', async () => {
    const token = await identify('late', 'Late')
    now = new Date(now.getTime() + 121_000)
    const context = await appContext(browser, 'react-native')
    const page = await context.newPage()
    expect((await page.goto(webViewUrl(token)))?.status()).toBe(401)
    await page.waitForFunction(() => window.appMessages.length > 0)
    expect(await page.evaluate(() => window.appMessages)).toEqual([
      { type: 'webview:session-refresh', reason: 'expired' },
    ])
    await context.close()
  }, 30_000)
})
