import { mkdirSync } from 'node:fs'
import { type Browser, chromium, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from '../../src/server/server.ts'
import { generateWebhookSecret } from '../../src/webhooks/signature.ts'
import { chromiumLaunchOptions } from '../support/chromium.ts'
import { startCli } from '../support/cli-process.ts'
import { readDoc } from '../support/docs.ts'
import { expectError, expectIdentified } from '../support/expect-body.ts'
import {
  expectSignedDelivery,
  type ReceivedDelivery,
  startReceiver,
} from '../support/webhook-delivery.ts'

/** Where the pictures of the inspector go (named in the server guide; the folder is gitignored). */
const screenshots = 'test/screenshots'

/** Opens the inspector, failing the test on any script error or policy violation it logs. */
async function openInspector(browser: Browser, url: string, width = 1280) {
  const context = await browser.newContext({ viewport: { width, height: 900 } })
  const page = await context.newPage()
  const problems: string[] = []
  page.on('pageerror', (error) => problems.push(error.message))
  page.on('console', (message) => {
    if (message.type() === 'error' && !/status of (401|404)/.test(message.text()))
      problems.push(message.text())
  })
  if (url !== 'about:blank') await page.goto(`${url}/__mock/`)
  return { context, page, problems }
}

const userRow = (page: Page, id: string) => page.locator(`#user-table tr[data-id="${id}"]`)

describe('the inspector page in a real browser', () => {
  let browser: Browser
  let server: RunningServer
  let key = ''

  beforeAll(async () => {
    server = await startServer({ port: 0 })
    key = server.core.credentials[0]?.apiKeys[0] ?? ''
    browser = await chromium.launch(chromiumLaunchOptions)
    mkdirSync(screenshots, { recursive: true })
  }, 30_000)
  afterAll(async () => {
    await browser?.close()
    await server?.close()
  })

  const identify = (id: string, firstName = 'Ada') =>
    fetch(`${server.url}/api/v1/users/identify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id, orgId: 'org-1', data: { firstName, lastName: 'Lovelace' } }),
    })

  it('shows the seeded users, and a user identified over HTTP appears without a reload', async () => {
    const { context, page, problems } = await openInspector(browser, server.url)
    const seeded = (await server.core.state()).users.filter((u) => u.orgId === 'org-1')
    expect(seeded.length).toBeGreaterThan(0)
    for (const user of seeded) await expect.poll(() => userRow(page, user.id).count()).toBe(1)
    await expect.poll(() => page.locator('#org-list').textContent()).toContain(key)
    expect(await page.locator('#org-list').textContent()).toContain('Answer shapes: full')

    await expectIdentified(await identify('inspector-new'))
    await userRow(page, 'inspector-new').waitFor({ timeout: 10_000 })
    expect(await userRow(page, 'inspector-new').textContent()).toContain('Ada Lovelace')
    const journal = page.locator('#journal-table tbody tr').first()
    await expect.poll(() => journal.textContent()).toContain('/api/v1/users/identify')
    expect(await journal.locator('td').nth(3).getAttribute('class')).toBe('status-2')

    await page.screenshot({ path: `${screenshots}/inspector-desktop.png`, fullPage: true })
    expect(problems).toEqual([])
    await context.close()
  }, 30_000)

  it("shows the mock's clock and the chosen organisation's, live, and each call's time on its organisation's clock", async () => {
    const { context, page, problems } = await openInspector(browser, server.url)
    await expect
      .poll(() => page.locator('#mock-clock').textContent())
      .toMatch(/^The mock's clock: real, 20\d\d-/)
    await server.core.clocks.set('org-1', { frozenAt: '2031-03-04T05:06:07Z' })
    try {
      await expect
        .poll(() => page.locator('#org-clock').textContent())
        .toBe('Clock of org-1: frozen at 2031-03-04T05:06:07.000Z')
      await expectIdentified(await identify('inspector-clock'))
      const time = page.locator('#journal-table tbody tr').first().locator('td').first()
      await expect.poll(() => time.textContent()).toContain('clock: 2031-03-04T05:06:07+00:00')
    } finally {
      await server.core.clocks.set('org-1', { real: true })
    }
    expect(problems).toEqual([])
    await context.close()
  }, 30_000)

  it('queues a fault from the form, and the next identify answers it', async () => {
    const { context, page, problems } = await openInspector(browser, server.url)
    await page.locator('#panels').waitFor()
    await page.selectOption('#fault-operation', 'identify')
    await page.selectOption('#fault-status', '500')
    await page.fill('#fault-count', '1')
    await page.click('#fault-form button[type=submit]')
    await expect.poll(() => page.locator('#fault-list').textContent()).toContain('identify → 500')
    expect(server.core.queuedFaults()).toEqual([
      { operation: 'identify', status: 500, remaining: 1, delayMs: 0 },
    ])

    await expectError(await identify('faulted'), 500, 'Internal server error')
    await expect.poll(() => page.locator('#fault-empty').isVisible()).toBe(true)
    const journal = page.locator('#journal-table tbody tr').first()
    await expect.poll(() => journal.locator('td').nth(3).getAttribute('class')).toBe('status-5')
    expect(problems).toEqual([])
    await context.close()
  }, 30_000)

  it('saves a snapshot of the chosen organisation, restores it, forks it and drops it', async () => {
    const { context, page, problems } = await openInspector(browser, server.url)
    await page.locator('#panels').waitFor()
    await page.fill('#snapshot-name', 'from-the-page')
    await page.click('#snapshot-form button[type=submit]')
    const row = page.locator('#snapshot-table tr[data-name="from-the-page"]')
    await row.waitFor({ timeout: 10_000 })
    const [saved] = await server.core.organisations.snapshots('org-1')
    expect(saved).toMatchObject({ name: 'from-the-page' })
    expect(await row.textContent()).toContain(String(saved?.users))

    const [first] = (await server.core.state()).users.filter((u) => u.orgId === 'org-1')
    await expectIdentified(await identify('snapshot-later'))
    await userRow(page, 'snapshot-later').waitFor({ timeout: 10_000 })
    await row.getByRole('button', { name: 'Restore' }).click()
    await expect.poll(() => userRow(page, 'snapshot-later').count()).toBe(0)
    expect(await userRow(page, first?.id ?? '').count()).toBe(1)

    await row.getByRole('button', { name: 'Fork' }).click()
    await expect.poll(() => page.locator('#status').textContent()).toMatch(/^Forked snapshot/)
    const forked = await page.locator('#org-select').inputValue()
    expect(forked).not.toBe('org-1')
    expect(server.core.credentials.map((c) => c.orgId)).toContain(forked)
    await expect.poll(() => userRow(page, first?.id ?? '').count()).toBe(1)
    await server.core.organisations.remove(forked)

    await page.selectOption('#org-select', 'org-1')
    await row.getByRole('button', { name: 'Drop' }).click()
    await expect.poll(() => page.locator('#snapshot-empty').isVisible()).toBe(true)
    expect(await server.core.organisations.snapshots('org-1')).toEqual([])
    expect(problems).toEqual([])
    await context.close()
  }, 30_000)

  it("starts and ends the chosen organisation's chaos, and the journal shows each failure drawn", async () => {
    const { context, page, problems } = await openInspector(browser, server.url)
    await page.locator('#panels').waitFor()
    await expect
      .poll(() => page.locator('#chaos-state').textContent())
      .toBe('org-1 has no chaos of its own.')
    await page.fill('#chaos-rate', '1')
    await page.selectOption('#chaos-case', 'identify-gateway-503')
    await page.fill('#chaos-seed', '77')
    await page.fill('#chaos-calls', '2')
    await page.click('#chaos-form button[type=submit]')
    await expect
      .poll(() => page.locator('#chaos-state').textContent())
      .toBe(
        'Chaos of org-1: 100 % of calls (identify-gateway-503), seed 77, ending after 2 calls: 0 drawn, 0 failed.',
      )
    expect(server.core.chaos.read('org-1')).toMatchObject({ rate: 1, seed: 77, calls: 2 })

    expect((await identify('chaos')).status).toBe(503)
    const journal = page.locator('#journal-table tbody tr').first()
    await expect.poll(() => journal.locator('td').nth(5).textContent()).toBe('gateway 503 (chaos)')
    await expect
      .poll(() => page.locator('#chaos-state').textContent())
      .toContain('1 drawn, 1 failed')
    await page.click('#chaos-end')
    await expect
      .poll(() => page.locator('#chaos-state').textContent())
      .toBe('org-1 has no chaos of its own.')
    expect(server.core.chaos.read('org-1')).toBeNull()
    expect(problems).toEqual([])
    await context.close()
  }, 30_000)

  it('arms a failure case from its list, and the journal shows the failure the call met', async () => {
    const { context, page, problems } = await openInspector(browser, server.url)
    await page.locator('#panels').waitFor()
    const names = await page.locator('#case-name option').allTextContents()
    expect(names).toEqual(server.core.failures.cases().map((c) => c.name))
    await page.selectOption('#case-name', 'identify-reset-applied')
    expect(await page.locator('#case-summary').textContent()).toBe(
      'The connection dropped with no answer.',
    )
    await page.click('#case-form button[type=submit]')
    await expect
      .poll(() => page.locator('#fault-list').textContent())
      .toContain('identify → reset, applied (identify-reset-applied)')

    await expect(identify('lost')).rejects.toThrow(TypeError)
    expect((await server.core.state()).users.some((u) => u.id === 'lost')).toBe(true)
    const journal = page.locator('#journal-table tbody tr').first()
    await expect.poll(() => journal.locator('td').nth(5).textContent()).toBe('reset, applied')
    expect(await journal.locator('td').nth(3).textContent()).toBe('200')
    expect(problems).toEqual([])
    await context.close()
  }, 30_000)

  it("shows what the chosen organisation's calls met of the answer space, live, and what they never met", async () => {
    server.core.clearCoverage()
    const { context, page, problems } = await openInspector(browser, server.url)
    const total = server.core.coverage().total
    await expect
      .poll(() => page.locator('#coverage-summary').textContent())
      .toBe(`The calls of org-1 met 0 of ${total} answers the API may give.`)
    await expectIdentified(await identify('coverage-new'))
    await expect
      .poll(() => page.locator('#coverage-summary').textContent())
      .toBe(`The calls of org-1 met 1 of ${total} answers the API may give.`)
    expect(await page.locator('#coverage-met').textContent()).toBe(
      'identify.200.created 200: a user created, with its first sign-in token (1×)',
    )
    const never = await page.locator('#coverage-never li').allTextContents()
    expect(never).toHaveLength(total - 1)
    expect(never).toContain('delete.404 404 User not found')
    const identifyRow = page.locator('#coverage-groups tbody tr').first()
    expect(await identifyRow.locator('td').allTextContents()).toEqual(['identify', '1', '6'])
    expect(problems).toEqual([])
    await context.close()
  }, 30_000)

  it("opens a user's details without its token, its web view in a new tab, and deletes it", async () => {
    const { token } = await expectIdentified(await identify('detailed', 'Grace'))
    const { context, page, problems } = await openInspector(browser, server.url)
    await userRow(page, 'detailed').locator('button.open-user').click()
    await expect
      .poll(() => page.locator('#detail-title').textContent())
      .toBe('detailed · Grace Lovelace')
    const tokens = page.locator('#detail-body table').first()
    await expect.poll(() => tokens.locator('tbody tr').count()).toBe(1)
    expect(await page.content()).not.toContain(token)
    const shape = page.locator('#detail-body dt', { hasText: 'Answer shape' })
    expect(await shape.locator('xpath=following-sibling::dd[1]').textContent()).toBe('full')

    const [tab] = await Promise.all([context.waitForEvent('page'), page.click('#open-web-view')])
    await tab?.waitForURL(/\/webview\?/)
    await tab?.locator('#learner').waitFor()
    expect(await tab?.locator('#learner').textContent()).toBe('Grace Lovelace')
    await tab?.close()

    page.once('dialog', (dialog) => dialog.accept())
    await page.click('#delete-user')
    await expect.poll(() => userRow(page, 'detailed').count()).toBe(0)
    expect(await page.locator('#user-detail').isHidden()).toBe(true)
    const state = await server.core.state()
    expect(state.users.find((u) => u.id === 'detailed')).toBeUndefined()
    expect(problems).toEqual([])
    await context.close()
  }, 30_000)

  it('resets from the page after confirmation, and the new user is gone', async () => {
    await expectIdentified(await identify('before-reset'))
    const { context, page, problems } = await openInspector(browser, server.url)
    await userRow(page, 'before-reset').waitFor()
    await page.click('#reset')
    expect(await userRow(page, 'before-reset').count()).toBe(1)
    await page.getByRole('button', { name: 'Confirm reset' }).click()
    await expect.poll(() => userRow(page, 'before-reset').count()).toBe(0)
    expect(await page.locator('#status').textContent()).toBe('Back to the seeded data.')
    expect(server.core.requests()).toEqual([])
    expect(problems).toEqual([])
    await context.close()
  }, 30_000)

  it('never scrolls sideways on a 390 px phone, tables scrolling in their own box', async () => {
    await expectIdentified(await identify('phone-user'))
    const { context, page, problems } = await openInspector(browser, server.url, 390)
    await userRow(page, 'phone-user').locator('button.open-user').click()
    await page.locator('#user-detail').waitFor()
    await expect.poll(() => page.locator('#journal-table tbody tr').count()).toBeGreaterThan(0)
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
    const table = await page.evaluate(() => {
      const box = document.querySelector('#user-table')?.parentElement
      return { scrolls: (box?.scrollWidth ?? 0) > (box?.clientWidth ?? 0) }
    })
    expect(table.scrolls).toBe(true)
    await page.screenshot({ path: `${screenshots}/inspector-phone.png`, fullPage: true })
    expect(problems).toEqual([])
    await context.close()
  }, 30_000)

  it('names every screenshot in the server guide', () => {
    const guide = readDoc('docs/guides/server.md')
    for (const name of ['inspector-desktop.png', 'inspector-phone.png', 'inspector-webhooks.png']) {
      expect(guide).toContain(`${screenshots}/${name}`)
    }
  })

  it('says how to add a webhook endpoint while there is none, then shows one added and its failed delivery', async () => {
    const { context, page, problems } = await openInspector(browser, server.url)
    await page.locator('#panels').waitFor()
    const empty = page.locator('#webhook-empty')
    await expect.poll(() => empty.isVisible()).toBe(true)
    expect(await empty.textContent()).toContain('--webhook-url <url>')
    expect(await page.locator('#webhook-endpoints').isHidden()).toBe(true)
    expect(await page.locator('#event-form').isHidden()).toBe(true)
    expect(await page.locator('#delivery-empty').isVisible()).toBe(true)

    const gone = await startReceiver()
    await gone.close()
    const added = await fetch(`${server.url}/__mock/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: gone.url, events: ['user.course.started'] }),
    })
    const { id, secret } = await added.json()
    const row = page.locator(`#webhook-table tr[data-id="${id}"]`)
    await row.waitFor({ timeout: 10_000 })
    expect(await row.textContent()).toBe(`${id}${gone.url}user.course.started`)
    expect(await empty.isHidden()).toBe(true)
    expect(await page.locator('#event-form').isVisible()).toBe(true)
    expect(await page.content()).not.toContain(secret)

    await page.selectOption('#event-type', 'user.course.started')
    expect(
      await page
        .locator('#event-fields input')
        .evaluateAll((inputs) => inputs.map((input) => input.getAttribute('data-field'))),
    ).toEqual(['courseId', 'timestamp'])
    await page.fill('#event-user', 'no-such-user')
    await page.click('#event-form button[type=submit]')
    await expect.poll(() => page.locator('#status').textContent()).toBe('User not found')
    const seeded = (await server.core.state()).users.find((u) => u.orgId === 'org-1')
    await page.fill('#event-user', seeded?.id ?? '')
    await page.fill('#event-fields input[data-field="courseId"]', 'course-9')
    await page.click('#event-form button[type=submit]')
    const delivery = page.locator(`#delivery-table tr[data-endpoint="${id}"]`)
    await expect.poll(() => delivery.locator('.attempt').count(), { timeout: 10_000 }).toBe(1)
    expect(await delivery.locator('td').nth(2).textContent()).toBe('user.course.started')
    const failure = delivery.locator('.attempt span').nth(1)
    expect(await failure.textContent()).toBe('network error (ECONNREFUSED)')
    expect(await failure.getAttribute('class')).toBe('status-5')
    expect(await delivery.locator('.outcome').textContent()).toBe('no')

    await fetch(`${server.url}/__mock/webhooks/${id}`, { method: 'DELETE' })
    await expect.poll(() => empty.isVisible()).toBe(true)
    expect(await page.locator('#event-form').isHidden()).toBe(true)
    expect(problems).toEqual([])
    await context.close()
  }, 30_000)
})

describe('the webhooks section of `serve --webhook-url`', () => {
  it('raises an event from the form, and its delivery appears with every attempt without a reload', async () => {
    const receiver = await startReceiver()
    receiver.answers.push(500)
    const secret = generateWebhookSecret()
    const { cli, url } = await startCli([
      ...['--webhook-url', receiver.url, '--webhook-secret', secret],
      ...['--webhook-retry-schedule', '300'],
    ])
    const browser = await chromium.launch(chromiumLaunchOptions)
    try {
      const { context, page, problems } = await openInspector(browser, url)
      const endpoint = page.locator('#webhook-table tbody tr')
      await expect.poll(() => endpoint.count()).toBe(1)
      expect(await endpoint.locator('td').nth(1).textContent()).toBe(receiver.url)
      expect(await endpoint.locator('td').nth(2).textContent()).toBe('all')
      expect(await page.locator('#webhook-empty').isHidden()).toBe(true)
      expect(await page.locator('#delivery-empty').isVisible()).toBe(true)
      expect(await page.content()).not.toContain(secret)
      const firstUser = page.locator('#user-table tbody tr').first()
      await firstUser.waitFor()
      const userId = (await firstUser.getAttribute('data-id')) ?? ''
      let loads = 0
      page.on('load', () => loads++)

      await page.selectOption('#event-type', 'notifications.sent')
      await page.fill('#event-user', userId)
      await page.fill('#event-fields input[data-field="title"]', 'Reminder')
      await page.fill('#event-fields input[data-field="path"]', '/learning/path-1')
      const [raise] = await Promise.all([
        page.waitForRequest((request) => request.url().endsWith('/__mock/events')),
        page.click('#event-form button[type=submit]'),
      ])
      expect(raise.headers()['content-type']).toBe('application/json')
      expect(raise.postDataJSON()).toEqual({
        type: 'notifications.sent',
        orgId: 'org-1',
        id: userId,
        title: 'Reminder',
        path: '/learning/path-1',
      })
      await expect
        .poll(() => page.locator('#status').textContent())
        .toMatch(/^Event msg_\w+ raised\.$/)
      const messageId = (await page.locator('#status').textContent())?.split(' ')[1] ?? ''

      const delivery = page.locator(`#delivery-table tr[data-id="${messageId}"]`)
      await expect
        .poll(() => delivery.locator('.outcome').textContent(), { timeout: 10_000 })
        .toBe('yes')
      const attempts = delivery.locator('.attempt')
      expect(await attempts.count()).toBe(2)
      expect(await attempts.nth(0).locator('span').nth(1).textContent()).toBe('500')
      expect(await attempts.nth(0).locator('span').nth(1).getAttribute('class')).toBe('status-5')
      expect(await attempts.nth(1).locator('span').nth(1).textContent()).toBe('200')
      expect(await attempts.nth(1).locator('span').nth(1).getAttribute('class')).toBe('status-2')
      expect(await delivery.locator('td').nth(1).textContent()).toBe(
        await endpoint.locator('td').first().textContent(),
      )
      expect(loads).toBe(0)

      expect(receiver.received.map((r) => r.headers['svix-id'])).toEqual([messageId, messageId])
      const event = expectSignedDelivery(receiver.received[1] as ReceivedDelivery, secret)
      expect(event.data).toEqual({
        notifications: [
          expect.objectContaining({
            title: 'Reminder',
            path: '/learning/path-1',
            custom_id: userId,
          }),
        ],
      })

      await page.locator('#webhooks').screenshot({ path: `${screenshots}/inspector-webhooks.png` })
      await page.setViewportSize({ width: 390, height: 844 })
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
        390,
      )
      expect(problems).toEqual([])
      await context.close()
    } finally {
      await browser.close()
      cli.child.kill('SIGKILL')
      await receiver.close()
    }
  }, 40_000)
})

describe('the inspector of `serve --control-token`', () => {
  it('asks for the token once, then sends it with every data call', async () => {
    const token = 'inspector-Control-token'
    const { cli, url } = await startCli(['--control-token', token])
    const browser = await chromium.launch(chromiumLaunchOptions)
    try {
      expect(cli.stdout()).toContain(`Inspector: ${url}/__mock/`)
      const { context, page, problems } = await openInspector(browser, url)
      await page.locator('#token-panel').waitFor()
      expect(await page.locator('#panels').isHidden()).toBe(true)

      await page.fill('#token-input', 'not-the-token')
      await page.click('#token-form button[type=submit]')
      await expect.poll(() => page.locator('#status').textContent()).toContain('refused')
      expect(await page.locator('#token-panel').isVisible()).toBe(true)

      const dataCalls: Array<string | undefined> = []
      page.on('request', (request) => {
        if (!/\/__mock\/inspector\.|\/__mock\/$/.test(request.url()))
          dataCalls.push(request.headers().authorization)
      })
      await page.fill('#token-input', token)
      await page.click('#token-form button[type=submit]')
      await page.locator('#panels').waitFor()
      await expect.poll(() => page.locator('#user-table tbody tr').count()).toBeGreaterThan(0)
      expect(dataCalls.length).toBeGreaterThan(0)
      expect(new Set(dataCalls)).toEqual(new Set([`Bearer ${token}`]))

      await page.reload()
      await page.locator('#panels').waitFor()
      expect(await page.locator('#token-panel').isHidden()).toBe(true)
      expect(problems).toEqual([])
      await context.close()
    } finally {
      await browser.close()
      cli.child.kill('SIGKILL')
    }
  }, 40_000)
})
