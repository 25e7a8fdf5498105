/**
 * What one parallel test worker does against a mock shared with others: it creates its own
 * organisation, then for `rounds` rounds queues a fault scoped to it, identifies (and must get
 * that fault), identifies again (200), checks that its users and its calls are exactly its own,
 * resets its organisation and checks that it is back where it started. Every surprise is
 * returned as a line: a worker that took another's fault, lost users to another's reset, or saw
 * another's calls.
 *
 * Run as a process (`node tenant-worker.ts <url>`, Node strips the types), it drives a server
 * over HTTP and prints its surprises as one JSON line; `runTenantWorker` drives any mock.
 */

/** What a worker can do to the mock it shares, whatever the way in. */
export interface SharedMock {
  createTenant(): Promise<{ orgId: string; apiKey: string }>
  failNextIdentify(orgId: string): Promise<void>
  identify(apiKey: string, orgId: string, id: string): Promise<number>
  reset(orgId: string): Promise<void>
  userIds(orgId: string): Promise<string[]>
  /** The calls listed for `orgId`: the organisation and user id each one names. */
  calls(orgId: string): Promise<{ orgId: unknown; id: unknown; status: number }[]>
}

export async function runTenantWorker(mock: SharedMock, rounds: number): Promise<string[]> {
  const surprises: string[] = []
  const expectSame = (what: string, actual: unknown, expected: unknown) => {
    if (JSON.stringify(actual) !== JSON.stringify(expected)) {
      surprises.push(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`)
    }
  }
  const { orgId, apiKey } = await mock.createTenant()
  const start = await mock.userIds(orgId)
  expectSame('users at the start', start, ['base'])
  for (let round = 0; round < rounds; round++) {
    const id = `round-${round}`
    await mock.failNextIdentify(orgId)
    expectSame(
      `round ${round}: the first identify (its own fault)`,
      await mock.identify(apiKey, orgId, id),
      500,
    )
    expectSame(`round ${round}: the second identify`, await mock.identify(apiKey, orgId, id), 200)
    expectSame(`round ${round}: its users`, await mock.userIds(orgId), ['base', id])
    expectSame(`round ${round}: its calls`, await mock.calls(orgId), [
      { orgId, id, status: 500 },
      { orgId, id, status: 200 },
    ])
    await mock.reset(orgId)
    expectSame(`round ${round}: its users after its reset`, await mock.userIds(orgId), start)
    expectSame(`round ${round}: its calls after its reset`, await mock.calls(orgId), [])
  }
  return surprises
}

/** The shared mock at `url`, over HTTP: the control endpoints and the API. */
export function overHttp(url: string): SharedMock {
  const control = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(url + path, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    if (!response.ok)
      throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`)
    const text = await response.text()
    return text ? JSON.parse(text) : undefined
  }
  return {
    createTenant: () =>
      control('POST', '/__mock/organisations', {
        users: [{ id: 'base', registrationStatus: 'archived' }],
      }),
    failNextIdentify: (orgId) =>
      control('POST', '/__mock/faults', { operation: 'identify', status: 500, orgId }),
    identify: async (apiKey, orgId, id) => {
      const response = await fetch(`${url}/api/v1/users/identify`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ id, orgId }),
      })
      await response.arrayBuffer()
      return response.status
    },
    reset: (orgId) => control('POST', '/__mock/reset', { orgId }),
    userIds: async (orgId) => {
      const { users } = await control('GET', `/__mock/users?orgId=${orgId}&limit=100`)
      return users.map((u: { id: string }) => u.id).sort()
    },
    calls: async (orgId) => {
      const entries = await control('GET', `/__mock/requests?orgId=${orgId}`)
      return entries.map((e: { request: { orgId: unknown; id: unknown }; status: number }) => ({
        orgId: e.request.orgId,
        id: e.request.id,
        status: e.status,
      }))
    },
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [url = '', rounds = '20'] = process.argv.slice(2)
  const surprises = await runTenantWorker(overHttp(url), Number(rounds))
  process.stdout.write(`${JSON.stringify(surprises)}\n`)
}
