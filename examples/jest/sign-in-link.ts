/** Where the platform's API lives, and who the backend is to it. */
export interface ApiConfig {
  baseUrl: string
  apiKey: string
  orgId: string
  /** The `fetch` to call the API with: the global one by default. */
  fetch?: typeof fetch
}

/**
 * Identifies an app user with the platform and answers the web-view URL that signs them in.
 *
 * @example const url = await createSignInLink(config, { id: 'user-7', firstName: 'Ada' })
 */
export async function createSignInLink(
  config: ApiConfig,
  user: { id: string; firstName: string },
): Promise<string> {
  const send = config.fetch ?? fetch
  const response = await send(`${config.baseUrl}/api/v1/users/identify`, {
    method: 'POST',
    headers: { authorization: `Bearer ${config.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id: user.id, orgId: config.orgId, data: { firstName: user.firstName } }),
  })
  if (!response.ok) throw new Error(`identify answered ${response.status}`)
  const { token } = (await response.json()) as { token: string }
  const url = new URL('/webview', config.baseUrl)
  url.search = new URLSearchParams({ orgId: config.orgId, token }).toString()
  return url.toString()
}
