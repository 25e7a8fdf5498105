/**
 * A CI job's smoke test of an integration: against the standalone mock (started with
 * `npx identify-api-mock serve --port 0 --json`), it identifies a user, checks the answer, deletes
 * the user and resets the mock for the next job. Configured by environment variables, as CI is.
 */
const baseUrl = process.env.IDENTIFY_API_URL ?? 'http://127.0.0.1:4010'
const apiKey = process.env.IDENTIFY_API_KEY ?? ''
const orgId = process.env.IDENTIFY_ORG_ID ?? 'org-1'

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(baseUrl + path, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  })
  const text = await res.text()
  return { status: res.status, body: text ? JSON.parse(text) : null }
}

function check(condition: boolean, message: string) {
  if (!condition) {
    console.error(`FAIL ${message}`)
    process.exit(1)
  }
  console.log(`ok   ${message}`)
}

const identified = await call('POST', '/api/v1/users/identify', {
  id: 'ci-smoke',
  orgId,
  data: { firstName: 'CI' },
})
check(identified.status === 200, 'identify answers 200')
check(
  typeof identified.body?.token === 'string' && identified.body.token.length >= 32,
  'identify returns a sign-in token',
)

const deleted = await call('DELETE', `/api/v1/users/${orgId}/ci-smoke`)
check(
  deleted.status === 200 && deleted.body?.deleted === true,
  'delete answers 200 with deleted: true',
)

const again = await call('DELETE', `/api/v1/users/${orgId}/ci-smoke`)
check(
  again.status === 404 && again.body?.message === 'User not found',
  'a second delete answers 404 User not found',
)

const reset = await fetch(`${baseUrl}/__mock/reset`, { method: 'POST' })
check(reset.status === 204, 'the mock is reset for the next job')
