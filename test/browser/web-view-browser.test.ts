import { mkdirSync } from 'node:fs'
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from '../../src/server/server.ts'
import { chromiumLaunchOptions } from '../support/chromium.ts'
import { expectIdentified } from '../support/expect-body.ts'

/** Where the browser test leaves a picture of the signed-in page (named in docs/guides/web-view.md). */
const screenshotPath = 'test-results/webview-signed-in.png'
/** Where it leaves a picture of the error page for each reason (named in docs/guides/web-view.md). */
const screenshots = 'test/screenshots'

declare global {
  interface Window {
    appMessages: unknown[]
  }
}

/** What the learner reads, per reason; the message posted to the app keeps the reason's code. */
const expected = {
  expired: { heading: 'This sign-in link has expired', reason: 'expired' },
  'already-used': { heading: 'This sign-in link has already been used', reason: 'already-used' },
  'wrong-organisation': {
    heading: 'This sign-in link is for another organisation',
    reason: 'wrong-organisation',
  },
  unknown: { heading: 'This sign-in link is not valid', reason: 'unknown' },
  'no-token': { heading: 'You are not signed in', reason: 'no-token' },
  'session-ended': { heading: 'Your session has ended', reason: 'no-token' },
} as const
type Failure = keyof typeof expected
const codes = [
  'already-used',
  'no-token',
  'wrong-organisation',
  'session-ended',
  '(expired)',
  '(unknown)',
]

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

  const errorPageUrl = (query: Record<string, string>) =>
    `${server.url}/webview?${new URLSearchParams({ orgId: 'org-1', ...query })}`

  /** Opens the page that ends in `failure`, in a context of its own, as an app with webview=true. */
  async function openFailure(failure: Failure, context: BrowserContext): Promise<Page> {
    const page = await context.newPage()
    const open = async (query: Record<string, string>) => {
      const response = await page.goto(errorPageUrl({ webview: 'true', ...query }))
      return response?.status()
    }
    if (failure === 'expired') {
      const token = await identify('late', 'Late')
      now = new Date(now.getTime() + 121_000)
      expect(await open({ token })).toBe(401)
    } else if (failure === 'already-used') {
      const token = await identify('twice', 'Twice')
      expect(await open({ token })).toBe(200)
      expect(await open({ token })).toBe(401)
    } else if (failure === 'wrong-organisation') {
      const token = await identify('elsewhere', 'Elsewhere')
      const response = await page.goto(errorPageUrl({ webview: 'true', token, orgId: 'org-2' }))
      expect(response?.status()).toBe(401)
    } else if (failure === 'unknown') {
      expect(await open({ token: 'f'.repeat(64) })).toBe(401)
    } else if (failure === 'no-token') {
      expect(await open({})).toBe(401)
    } else {
      expect(await open({ token: await identify('leaver', 'Leaver') })).toBe(200)
      const deleted = await fetch(`${server.url}/api/v1/users/org-1/leaver`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${key}` },
      })
      expect(deleted.status).toBe(200)
      expect(await open({})).toBe(401)
    }
    return page
  }

  for (const failure of Object.keys(expected) as Failure[]) {
    it(`says "${expected[failure].heading}" in plain words, with a visible action and a close button`, async () => {
      const context = await appContext(browser, 'window')
      const violations: string[] = []
      context.on('console', (m) => {
        if (/Content Security Policy/i.test(m.text())) violations.push(m.text())
      })
      const page = await openFailure(failure, context)
      const { heading, reason } = expected[failure]
      expect(await page.locator('#failure').textContent()).toBe(heading)
      const text = await page.locator('body').innerText()
      for (const code of codes) expect(text).not.toContain(code)
      if (failure !== 'session-ended') expect(text).not.toContain('Your session has ended')

      // The primary action stands out from its card: its colours differ from the card's.
      const colours = await page.evaluate(() => {
        const retry = document.getElementById('retry') as HTMLElement
        const card = retry.closest('.card') as HTMLElement
        const style = getComputedStyle(retry)
        return {
          button: style.backgroundColor,
          text: style.color,
          card: getComputedStyle(card).backgroundColor,
        }
      })
      expect(colours.button).not.toBe(colours.card)
      expect(colours.text).not.toBe(colours.button)
      expect(await page.locator('#retry').isVisible()).toBe(true)
      mkdirSync(screenshots, { recursive: true })
      await page.screenshot({ path: `${screenshots}/webview-error-${failure}.png`, fullPage: true })

      const refresh = { type: 'webview:session-refresh', reason }
      await page.waitForFunction(() => window.appMessages.length > 0)
      await page.click('#retry')
      await page.click('#close')
      await page.waitForFunction(() => window.appMessages.length >= 3)
      expect(await page.evaluate(() => window.appMessages)).toEqual([
        refresh,
        refresh,
        { type: 'webview:close' },
      ])
      expect(violations).toEqual([])
      await context.close()
    }, 30_000)
  }

  it('shows no close button without webview=true', async () => {
    const context = await appContext(browser, 'window')
    const page = await context.newPage()
    expect((await page.goto(errorPageUrl({})))?.status()).toBe(401)
    expect(await page.locator('#close').count()).toBe(0)
    await context.close()
  }, 30_000)
})
