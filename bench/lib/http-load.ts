import autocannon from 'autocannon'

/**
 * The API key of every bench server, as long as a real one: the journal redacts every string that
 * holds a key, so a one-letter key would have it redact (and hash the path of) every call whose
 * body holds that letter, a cost no real key brings.
 */
export const benchKey = 'sk_test_bench_4f1c2a9e7b3d5068'

/** The load every HTTP figure uses: 10 connections, as in the measurements. */
export const connections = 10

/** An identify body with every profile field, as a backend sends it. */
export function identifyBody(orgId: string, id: string): string {
  return JSON.stringify({
    id,
    orgId,
    data: {
      firstName: 'Ada',
      lastName: 'Lovelace',
      country: 'United Kingdom',
      region: 'London',
      sex: 'female',
      ageBracket: '35-44',
      userGroups: ['grp-1', 'grp-2'],
    },
  })
}

export function jsonHeaders(apiKey: string): Record<string, string> {
  return { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }
}

export interface LoadResult {
  /** 200 answers per second. */
  okPerSecond: number
  /** 2xx answers in all. */
  answers: number
  /** Answers other than 2xx, and connection errors: a figure with any is not valid. */
  failures: number
  /** Latency percentiles, in milliseconds, as autocannon times each answer. */
  p50Ms: number
  p99Ms: number
}

/**
 * One autocannon run (10 connections unless told, no pipelining) against `127.0.0.1`. Every bench
 * server runs without `maxRequestsPerSocket`: autocannon 8 and 9 mis-time the answers that follow
 * a connection the server closed.
 */
export async function load(
  options: Omit<autocannon.Options, 'connections'> & { url: string; connections?: number },
): Promise<LoadResult> {
  if (!new URL(options.url).hostname.startsWith('127.')) throw new Error('loads go to 127.0.0.1')
  const result = await autocannon({ connections, ...options } as autocannon.Options)
  return {
    okPerSecond: result['2xx'] / result.duration,
    answers: result['2xx'],
    failures: result.non2xx + result.errors + result.timeouts,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
  }
}

/** Identify calls updating one existing user, over and over. */
export function identifyUpdates(url: string, apiKey: string, orgId: string, id: string) {
  return {
    url: `${url}/api/v1/users/identify`,
    method: 'POST' as const,
    headers: jsonHeaders(apiKey),
    body: identifyBody(orgId, id),
  }
}

let nextId = 0

/** What a connection remembers between the requests of its cycle. */
type Cycle = { id?: string; token?: string }

/**
 * Each connection identifies a new user then deletes it, in a loop: the number of users stays
 * where it started, so the delete runs against the seeded size.
 */
export function identifyThenDelete(url: string, apiKey: string, orgId: string) {
  const headers = jsonHeaders(apiKey)
  const requests: autocannon.Request[] = [
    {
      method: 'POST' as const,
      path: '/api/v1/users/identify',
      headers,
      setupRequest: (request, context) => {
        const id = `bench-${process.pid}-${nextId++}`
        ;(context as Cycle).id = id
        return { ...request, body: identifyBody(orgId, id) }
      },
    },
    {
      method: 'DELETE' as const,
      headers: { authorization: headers.authorization as string },
      setupRequest: (request, context) => ({
        ...request,
        path: `/api/v1/users/${orgId}/${(context as Cycle).id}`,
      }),
    },
  ]
  return { url, requests }
}

/**
 * Each connection identifies one of 100 users (`id` and a number, in turn: new on its first call,
 * then existing), then redeems the token it got the way the web view does
 * (`GET /webview?orgId=&token=`), in a loop. With one user for all, the other connections' tokens
 * could push a token out of the user's bound of 10 between its identify and its redemption.
 */
export function identifyThenRedeem(url: string, apiKey: string, orgId: string, id: string) {
  const requests: autocannon.Request[] = [
    {
      method: 'POST' as const,
      path: '/api/v1/users/identify',
      headers: jsonHeaders(apiKey),
      setupRequest: (request) => ({
        ...request,
        body: identifyBody(orgId, `${id}-${nextId++ % 100}`),
      }),
      onResponse: (_status, body, context) => {
        ;(context as Cycle).token = (JSON.parse(body) as { token: string }).token
      },
    },
    {
      method: 'GET' as const,
      setupRequest: (request, context) => ({
        ...request,
        path: `/webview?orgId=${orgId}&token=${(context as Cycle).token}`,
      }),
    },
  ]
  return { url, requests }
}
