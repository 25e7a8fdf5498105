import { setupServer } from 'msw/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMockApi } from '../../src/root/index.ts'
import { type RunningServer, startServer } from '../../src/server/server.ts'
import { sendRaw } from '../support/http-client.ts'

/**
 * `HEAD /webview` has no side effect, the web-view pages send the hardening headers with a CSP
 * that runs only their own nonce-marked style and script, and identify's answers (a sign-in token
 * inside) are never cached, through the server and the MSW handlers alike.
 */

const json = { 'content-type': 'application/json' }

describe('the web view on the standalone server', () => {
  const key = 'hardening-key'
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer({ port: 0, organisations: [{ orgId: 'org-1', apiKeys: [key] }] })
  })
  afterAll(() => server.close())

  async function identify(id: string) {
    const res = await fetch(`${server.url}/api/v1/users/identify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, ...json },
      body: JSON.stringify({ id, orgId: 'org-1' }),
    })
    expect(res.status).toBe(200)
    return ((await res.json()) as { token: string }).token
  }
  const webView = (method: string, token: string) =>
    sendRaw(server.url, {
      method,
      target: `/webview?${new URLSearchParams({ orgId: 'org-1', token, webview: 'true' })}`,
    })

  it('answers HEAD with the status and headers GET would, without redeeming or setting a cookie', async () => {
    const token = await identify('head-first')
    const before = await server.core.state()
    for (let i = 0; i < 2; i++) {
      const head = await webView('HEAD', token)
      expect({ status: head.status, text: head.text }).toEqual({ status: 200, text: '' })
      expect(head.header('content-type')).toBe('text/html; charset=utf-8')
      expect(head.header('set-cookie')).toBeNull()
    }
    expect(await server.core.state()).toEqual(before)
    const get = await webView('GET', token)
    expect(get.status).toBe(200)
    expect(get.header('set-cookie')).toMatch(/^identify_api_mock_session=/)
    const used = await webView('HEAD', token)
    expect(used.status).toBe(401)
    expect(used.header('set-cookie')).toBeNull()
  })

  it('sends a CSP whose nonce is on the page’s style and script, nosniff and no referrer', async () => {
    const pages = [
      await webView('GET', await identify('headers')),
      await webView('GET', 'not-a-token'),
      await sendRaw(server.url, { method: 'PUT', target: '/webview' }),
      await sendRaw(server.url, {
        method: 'GET',
        target: '/webview',
        headers: { host: 'rebind.attacker.example' },
      }),
    ]
    expect(pages.map((p) => p.status)).toEqual([200, 401, 405, 403])
    const nonces = new Set<string>()
    for (const page of pages) {
      expect(page.header('x-content-type-options')).toBe('nosniff')
      expect(page.header('referrer-policy')).toBe('no-referrer')
      expect(page.header('cache-control')).toBe('no-store')
      const csp = page.header('content-security-policy') ?? ''
      const nonce = csp.match(/script-src 'nonce-([A-Za-z0-9+/=]{24})'/)?.[1] ?? ''
      expect(csp).toBe(
        `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; base-uri 'none'; form-action 'none'`,
      )
      // Every script and style element carries this response's nonce, and no other attribute.
      const tags = page.text.match(/<(script|style)\b[^>]*>/g) ?? []
      expect(tags).toEqual([`<style nonce="${nonce}">`, `<script nonce="${nonce}">`])
      expect(page.text).not.toMatch(/\son[a-z]+=/i)
      nonces.add(nonce)
    }
    expect(nonces.size).toBe(pages.length)
  })

  it('sends Cache-Control: no-store with every identify answer, success and error alike', async () => {
    const call = (headers: Record<string, string>, body: string) =>
      fetch(`${server.url}/api/v1/users/identify`, { method: 'POST', headers, body })
    const answers = [
      await call({ authorization: `Bearer ${key}`, ...json }, '{"id":"cached","orgId":"org-1"}'),
      await call({ ...json }, '{"id":"cached","orgId":"org-1"}'),
      await call({ authorization: `Bearer ${key}`, ...json }, '{'),
      await call({ authorization: `Bearer ${key}`, ...json }, '{"id":"x","orgId":"org-2"}'),
    ]
    expect(answers.map((a) => [a.status, a.headers.get('cache-control')])).toEqual([
      [200, 'no-store'],
      [401, 'no-store'],
      [400, 'no-store'],
      [403, 'no-store'],
    ])
  })
})

describe('identify through the MSW handlers', () => {
  const api = createMockApi({ organisations: [{ orgId: 'acme', apiKeys: ['acme-key'] }] })
  const msw = setupServer(...api.handlers)
  beforeAll(() => msw.listen({ onUnhandledFrame: 'error' }))
  afterAll(() => msw.close())

  it('sends Cache-Control: no-store too, on success and on a forced fault', async () => {
    const call = () =>
      fetch('https://api.example.test/api/v1/users/identify', {
        method: 'POST',
        headers: { authorization: 'Bearer acme-key', ...json },
        body: JSON.stringify({ id: 'msw', orgId: 'acme' }),
      })
    const ok = await call()
    api.failNext('identify', { status: 500 })
    const failed = await call()
    expect([ok.status, ok.headers.get('cache-control')]).toEqual([200, 'no-store'])
    expect([failed.status, failed.headers.get('cache-control')]).toEqual([500, 'no-store'])
  })
})
