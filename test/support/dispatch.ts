import type { MockCore } from '../../src/advanced.ts'

/** Calls a mock's transport-free dispatch as a transport would, for tests of the rules. */
export async function dispatchJson(
  core: MockCore,
  method: string,
  target: string,
  options: { key?: string; body?: unknown } = {},
) {
  const headers = new Headers({ 'content-type': 'application/json' })
  if (options.key) headers.set('authorization', `Bearer ${options.key}`)
  const body =
    options.body === undefined ? null : new TextEncoder().encode(JSON.stringify(options.body))
  const response = await core.dispatch({ method, target, headers, body })
  return { status: response.status, headers: response.headers, body: JSON.parse(response.body) }
}
