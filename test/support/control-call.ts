/**
 * A call of the control endpoints of the mock at `url` (`/__mock` and `path`), with a JSON body
 * when one is given (text as it is), and `headers`: its status and JSON body.
 *
 * @example const { status, body } = await controlCall(server.url, 'GET', '/clock')
 */
export async function controlCall(
  url: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const response = await fetch(`${url}/__mock${path}`, {
    method,
    headers: { ...(body !== undefined && { 'content-type': 'application/json' }), ...headers },
    ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  })
  const text = await response.text()
  return { status: response.status, body: text ? JSON.parse(text) : undefined }
}
