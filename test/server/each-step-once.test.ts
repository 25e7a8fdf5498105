import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { type RunningServer, startServer } from '../../src/server/server.ts'

// Counters around the front door, the route match and the credentials check, as the server calls
// them: each must run once for a request with a body, however it is answered.
const counts = vi.hoisted(() => ({ frontDoor: 0, route: 0, authenticate: 0 }))

vi.mock('../../src/server/front-door.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/server/front-door.ts')>()
  return {
    ...actual,
    guardAnswer: ((answer, policy) => {
      const guarded = actual.guardAnswer(answer, policy)
      return (request) => {
        counts.frontDoor++
        return guarded(request)
      }
    }) as typeof actual.guardAnswer,
  }
})

vi.mock('../../src/core/routes.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/core/routes.ts')>()
  const match = (method: string, pathname: string) => {
    counts.route++
    return actual.matchApiRoute(method, pathname)
  }
  return { ...actual, matchApiRoute: Object.assign(match, actual.matchApiRoute) }
})

vi.mock('../../src/rules/authenticate.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/rules/authenticate.ts')>()
  return {
    ...actual,
    authenticate: (...args: Parameters<typeof actual.authenticate>) => {
      counts.authenticate++
      return actual.authenticate(...args)
    },
  }
})

let server: RunningServer
let key: string
let orgId: string
beforeAll(async () => {
  server = await startServer({ port: 0 })
  const [first] = server.core.credentials
  key = first?.apiKeys[0] ?? ''
  orgId = first?.orgId ?? ''
})
afterAll(() => server.close())
beforeEach(() => {
  counts.frontDoor = 0
  counts.route = 0
  counts.authenticate = 0
})

const identify = (authorization: string, body: unknown) =>
  fetch(`${server.url}/api/v1/users/identify`, {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })

describe('an identify with a body, on the server', () => {
  it('passes the front door, the route match and the credentials check once each', async () => {
    expect((await identify(`Bearer ${key}`, { id: 'once', orgId })).status).toBe(200)
    expect(counts).toEqual({ frontDoor: 1, route: 1, authenticate: 1 })
  })

  it('passes each once when its body is refused (400) or its credentials are (401)', async () => {
    expect((await identify(`Bearer ${key}`, { id: '' })).status).toBe(400)
    expect((await identify('Bearer not-a-key', { id: 'x', orgId })).status).toBe(401)
    expect(counts).toEqual({ frontDoor: 2, route: 2, authenticate: 2 })
  })
})
