import { createServer, type Server } from 'node:http'

export interface TokenEndpointOptions {
  /** Base URL of the Identify and Delete User API. */
  apiBaseUrl: string
  apiKey: string
  orgId: string
  /** Where the platform's web view lives. */
  webViewUrl: string
}

/** Who the app's session says is signed in; a real backend reads its own session. */
interface AppUser {
  id: string
  firstName: string
  lastName: string
}

/**
 * The backend "token endpoint" an app calls when it opens the web view: it identifies the signed-in
 * user and answers the URL to load, with a fresh sign-in token. Nothing is cached: a token is
 * meant for immediate use.
 */
export function createTokenEndpoint(options: TokenEndpointOptions): Server {
  return createServer(async (req, res) => {
    if (req.method !== 'POST' || req.url !== '/web-view-url') {
      res.writeHead(404).end()
      return
    }
    const user: AppUser = {
      id: String(req.headers['x-app-user'] ?? ''),
      firstName: 'Ada',
      lastName: 'Lovelace',
    }
    const response = await fetch(`${options.apiBaseUrl}/api/v1/users/identify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${options.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        id: user.id,
        orgId: options.orgId,
        data: { firstName: user.firstName, lastName: user.lastName },
      }),
    })
    if (!response.ok) {
      res.writeHead(502, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ error: `identify answered ${response.status}` }))
      return
    }
    const { token } = (await response.json()) as { token: string }
    const url = new URL(options.webViewUrl)
    url.search = new URLSearchParams({
      orgId: options.orgId,
      token,
      path: '/learning',
      webview: 'true',
    }).toString()
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' })
    res.end(JSON.stringify({ url: url.toString() }))
  })
}
