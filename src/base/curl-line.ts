/**
 * A `curl` line that identifies `user-1` in `orgId` with `apiKey` on the server at `url`: what the
 * start-up banner prints and the inspector page shows for each organisation.
 *
 * @example
 * identifyCurlLine('http://127.0.0.1:4010', 'org-1', 'sk_test_…')
 * // curl -sS -X POST http://127.0.0.1:4010/api/v1/users/identify -H 'Authorization: Bearer sk_test_…' …
 */
export function identifyCurlLine(url: string, orgId: string, apiKey: string): string {
  const body = JSON.stringify({ id: 'user-1', orgId, data: { firstName: 'Ada' } })
  return [
    `curl -sS -X POST ${url}/api/v1/users/identify`,
    `-H 'Authorization: Bearer ${apiKey}'`,
    `-H 'Content-Type: application/json'`,
    `-d '${body}'`,
  ].join(' ')
}
