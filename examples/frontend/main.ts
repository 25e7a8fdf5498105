import { createMockApi } from 'identify-api-mock'
import { setupWorker } from 'msw/browser'

/**
 * A frontend that talks to the API through msw's Service Worker: the very handlers the Node tests
 * use, running in the browser with their in-memory model.
 */
const api = createMockApi({ organisations: [{ orgId: 'acme', apiKeys: ['browser-key'] }] })
const worker = setupWorker(...api.handlers)

const status = document.querySelector('#status') as HTMLOutputElement
const log = document.querySelector('#log') as HTMLPreElement
const headers = { authorization: 'Bearer browser-key', 'content-type': 'application/json' }

async function run() {
  await worker.start({ quiet: true, onUnhandledFrame: 'bypass' })
  const identified = await fetch('/api/v1/users/identify', {
    method: 'POST',
    headers,
    body: JSON.stringify({ id: 'browser-user', orgId: 'acme', data: { firstName: 'Bea' } }),
  })
  const profile = await identified.json()
  log.textContent += `identify ${identified.status} ${profile.data.firstName} ${profile.token.length}\n`

  const deleted = await fetch('/api/v1/users/acme/browser-user', { method: 'DELETE', headers })
  log.textContent += `delete ${deleted.status} ${JSON.stringify(await deleted.json())}\n`

  const again = await fetch('/api/v1/users/acme/browser-user', { method: 'DELETE', headers })
  log.textContent += `delete ${again.status} ${(await again.json()).message}\n`

  // The same mock without the worker: api.fetch goes straight to it, in the page.
  const direct = await api.fetch(`${location.origin}/api/v1/users/acme/browser-user`, {
    method: 'DELETE',
    headers,
  })
  log.textContent += `api.fetch ${direct.status}, ${api.calls('delete').length} delete calls\n`

  // What the page's calls met of every answer the API may give: the mock's contract coverage.
  const met = api.coverage().items.filter((item) => item.count > 0)
  log.textContent += `met ${met.map((item) => `${item.id} ×${item.count}`).join(', ')}\n`
  status.textContent = 'done'
}

run().catch((error: unknown) => {
  status.textContent = `failed: ${error instanceof Error ? error.message : String(error)}`
})
