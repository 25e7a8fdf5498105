import { setupServer } from 'msw/node'
import { describe, expect, it } from 'vitest'
import { maxBodyBytes } from '../../src/base/wire.ts'
import { createMockApi } from '../../src/root/index.ts'
import { expectError, expectIdentified } from '../support/expect-body.ts'

const organisations = [{ orgId: 'acme', apiKeys: ['test-key'] }]
const headers = { authorization: 'Bearer test-key', 'content-type': 'application/json' }
const identifyInit = (id: string): RequestInit => ({
  method: 'POST',
  headers,
  body: JSON.stringify({ id, orgId: 'acme' }),
})
/** An identify through `api.fetch` whose body is `body`, a stream. */
const identifyStreamed = (
  api: ReturnType<typeof createMockApi>,
  body: ReadableStream<Uint8Array>,
) =>
  api.fetch('https://x.example/api/v1/users/identify', {
    method: 'POST',
    headers,
    body,
    duplex: 'half',
  } as RequestInit)

describe('api.fetch', () => {
  it('takes a string, a URL or a Request, on any origin, without msw listening', async () => {
    const api = createMockApi({ organisations })
    const path = '/api/v1/users/identify'
    await expectIdentified(await api.fetch(`https://one.example${path}`, identifyInit('a')))
    await expectIdentified(await api.fetch(new URL(`http://localhost:9${path}`), identifyInit('b')))
    await expectIdentified(
      await api.fetch(new Request(`https://two.example${path}`, identifyInit('c'))),
    )
    expect(api.calls().map((c) => c.request)).toEqual(
      ['a', 'b', 'c'].map((id) => ({ id, orgId: 'acme' })),
    )
  })

  it('answers a real Response: a byte stream read once, clones, the type and URL of one constructed', async () => {
    const api = createMockApi({ organisations })
    const response = await api.fetch('https://x.example/api/v1/users/identify', identifyInit('r'))
    expect(Object.getPrototypeOf(response)).toBe(Response.prototype)
    expect(Reflect.ownKeys(response)).toEqual([])
    expect([response.type, response.url, response.redirected]).toEqual(['default', '', false])
    expect(response.bodyUsed).toBe(false)
    const copy = response.clone()
    const reader = (response.body as ReadableStream<Uint8Array>).getReader({ mode: 'byob' })
    const { value } = await reader.read(new Uint8Array(16))
    expect(new TextDecoder().decode(value)).toBe('{"id":"r","data"'.slice(0, value?.byteLength))
    reader.releaseLock()
    expect(response.bodyUsed).toBe(true)
    await expect(response.text()).rejects.toThrow(TypeError)
    await expectIdentified(copy)
    // A constructed Response's headers may be changed, as the handlers' may.
    copy.headers.set('x-seen', 'yes')
    expect(copy.headers.get('x-seen')).toBe('yes')
  })

  it('answers the web view and 404 elsewhere, as the handlers do', async () => {
    const api = createMockApi({ organisations })
    expect((await api.fetch('https://x.example/webview?orgId=acme')).status).toBe(401)
    await expectError(await api.fetch('https://x.example/api/v2/other'), 404, 'Not found')
  })

  it('rejects another origin than baseUrl with a TypeError, as a network error', async () => {
    const api = createMockApi({ organisations, baseUrl: 'https://api.example.test/' })
    await expectIdentified(
      await api.fetch('https://api.example.test/api/v1/users/identify', identifyInit('pinned')),
    )
    for (const url of [
      'https://other.example/api/v1/users/identify',
      'https://api.example.test.evil/api/v1/users/identify',
      'http://api.example.test/api/v1/users/identify',
    ]) {
      await expect(api.fetch(url, identifyInit('elsewhere'))).rejects.toThrow(TypeError)
    }
    expect(api.requests()).toHaveLength(1)
  })

  it('rejects a relative URL with a TypeError, as fetch does in Node', async () => {
    const api = createMockApi({ organisations })
    await expect(api.fetch('/api/v1/users/identify')).rejects.toThrow(TypeError)
  })

  it('rejects with the reason of an aborted signal, and changes nothing', async () => {
    const api = createMockApi({ organisations })
    const controller = new AbortController()
    controller.abort(new Error('gave up'))
    await expect(
      api.fetch('https://x.example/api/v1/users/identify', {
        ...identifyInit('aborted'),
        signal: controller.signal,
      }),
    ).rejects.toThrow('gave up')
    expect((await api.state()).users.some((u) => u.id === 'aborted')).toBe(false)
  })

  it("rejects with the reason of a Request's aborted signal, and changes nothing", async () => {
    const api = createMockApi({ organisations })
    const controller = new AbortController()
    controller.abort(new Error('gave up'))
    const request = new Request('https://x.example/api/v1/users/identify', {
      ...identifyInit('aborted'),
      signal: controller.signal,
    })
    await expect(api.fetch(request)).rejects.toThrow('gave up')
    expect(api.requests()).toEqual([])
  })

  it('answers 400 Bad request to a body whose stream fails, as the handlers do', async () => {
    const api = createMockApi({ organisations })
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.error(new Error('connection reset'))
      },
    })
    await expectError(await identifyStreamed(api, body), 400, 'Bad request')
  })

  it('stops reading a streamed body past 1 MiB and answers 400', async () => {
    const api = createMockApi({ organisations })
    let pulled = 0
    const chunk = new Uint8Array(64 * 1024).fill(0x20)
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += chunk.byteLength
        controller.enqueue(chunk)
      },
    })
    await expectError(await identifyStreamed(api, body), 400, 'Invalid request parameters')
    expect(pulled).toBeLessThan(maxBodyBytes + 4 * chunk.byteLength)
  })

  it('reads its arguments as a Fetch Request would, however they are given', async () => {
    const identify = 'https://x.example/api/v1/users/identify'
    const json = JSON.stringify({ id: 'same', orgId: 'acme' })
    const cases: [string | URL, RequestInit | undefined][] = [
      [identify, { method: 'post', headers, body: json }],
      [new URL(identify), { method: 'POST', headers: new Headers(headers), body: json }],
      [identify, { method: 'POST', headers: Object.entries(headers), body: json }],
      // No Content-Type: a string body is text/plain to a Request, and the identify a 400.
      [identify, { method: 'POST', headers: { authorization: headers.authorization }, body: json }],
      [identify, { method: 'POST', headers, body: ' '.repeat(maxBodyBytes + 1) }],
      [identify, { method: 'POST', headers, body: '' }],
      [
        'https://x.example/api/v1/users/../users/x/%7Bid%7D z?q=1#part',
        { method: 'DELETE', headers },
      ],
      ['https://x.example/api/v1/users/identify?x=1', { method: 'head', headers }],
      ['https://x.example/api/v2/other', undefined],
      // Refused by Request itself: a TypeError, nothing journaled.
      [identify, { method: 'TRACE', headers }],
      [identify, { method: 'GET', headers, body: json }],
      [
        'https://user:pass@x.example/api/v1/users/identify',
        { method: 'POST', headers, body: json },
      ],
      ['/api/v1/users/identify', undefined],
      [identify, { method: 'POST', headers: { 'x-bad': 'a\nb' }, body: json }],
      [identify, { method: 'POST', headers: { ...headers, 'bad name': 'x' }, body: json }],
      [identify, { method: 'POST', headers: { ...headers, 'x-note': '\u2603' }, body: json }],
      [identify, { method: 'POST', headers: { ...headers, [Symbol('s')]: 'x' }, body: json }],
      [identify, { method: 'POST', headers: null, body: json } as unknown as RequestInit],
      [identify, { method: 'POST', headers, body: json, signal: {} } as unknown as RequestInit],
      // Headers a `Headers` rewrites: as the code under test would see them answered.
      [
        identify,
        {
          method: 'POST',
          headers: { authorization: ' Bearer test-key\t', 'content-type': 'application/json ' },
          body: json,
        },
      ],
      [
        identify,
        { method: 'POST', headers: { ...headers, authorization: ' Bearer test-key ' }, body: json },
      ],
      [
        identify,
        {
          method: 'POST',
          headers: { ...headers, Authorization: headers.authorization },
          body: json,
        },
      ],
      [identify, { method: 'POST', headers: { ...headers, 'x-note': 'caf\u00e9' }, body: json }],
      [
        identify,
        {
          method: 'POST',
          headers: { ...headers, 'x-count': 5 },
          body: json,
        } as unknown as RequestInit,
      ],
      [
        identify,
        { method: 'POST', headers: Object.assign(Object.create(null), headers), body: json },
      ],
      [
        identify,
        {
          method: 'POST',
          headers: Object.defineProperty({ 'content-type': 'application/json' }, 'authorization', {
            value: headers.authorization,
            enumerable: false,
          }),
          body: json,
        },
      ],
      [identify, { method: 'POST', headers: { ...headers, 'x-empty': '' }, body: json }],
      // A URL read again: the identify URL of the cases above from what the first call learnt of
      // it; one with a query (a web view's may carry a token) is parsed each time.
      [
        'https://user:pass@x.example/api/v1/users/identify',
        { method: 'POST', headers, body: json },
      ],
      ['https://x.example/webview?orgId=acme', undefined],
      ['https://x.example/webview?orgId=acme', undefined],
      ['https://x.example/webview?orgId=acme&token=bad', undefined],
    ]
    // One clock for both: the two calls may fall on either side of a second.
    const now = () => new Date(Date.UTC(2025, 7, 14, 15, 0, 0))
    for (const [input, init] of cases) {
      const direct = createMockApi({ organisations, now })
      const viaRequest = createMockApi({ organisations, now })
      const answer = await direct.fetch(input, init).then(outcome, failure)
      const expected = await Promise.resolve()
        .then(() => viaRequest.dispatch(new Request(input, init)))
        .then((wire) => outcome(new Response(wire.body || null, wire)), failure)
      expect(answer, `${input} ${JSON.stringify(init)}`).toEqual(expected)
      const journal = (api: typeof direct) =>
        api.requests().map(({ time, durationMs, ...entry }) => entry)
      expect(journal(direct)).toEqual(journal(viaRequest))
    }
  })

  it('is not intercepted by msw: a listening server with other handlers never sees it', async () => {
    const api = createMockApi({ organisations })
    const server = setupServer()
    const seen: string[] = []
    server.events.on('request:start', ({ request }) => void seen.push(request.url))
    server.listen({ onUnhandledFrame: 'error' })
    try {
      await expectIdentified(
        await api.fetch('https://x.example/api/v1/users/identify', identifyInit('direct')),
      )
    } finally {
      server.close()
    }
    expect(seen).toEqual([])
  })
})

/** What a caller sees of a failure: its kind and its message. */
const failure = (error: Error) => `${error.name}: ${error.message}`

/** What a caller sees of an answer, its random or timed values by their type only. */
async function outcome(response: Response) {
  const text = await response.text()
  const varying = new Set(['token', 'userId', 'registeredAt'])
  const body = text.startsWith('{')
    ? JSON.parse(text, (key, value) => (varying.has(key) ? typeof value : value))
    : withoutNonces(text)
  const headers = [...response.headers].map(([name, value]) => [name, withoutNonces(value)])
  return { status: response.status, headers, body }
}

/** `text` without the web view's nonces, new on every page. */
const withoutNonces = (text: string) => text.replaceAll(/nonce(-|=")[A-Za-z0-9+/]+=*/g, 'nonce$1')

describe('api.dispatch', () => {
  it('takes a Fetch Request as well as a WireRequest', async () => {
    const api = createMockApi({ organisations })
    const request = new Request('https://x.example/api/v1/users/identify', identifyInit('req'))
    const answer = await api.dispatch(request)
    expect(answer.status).toBe(200)
    expect(JSON.parse(answer.body)).toMatchObject({ token: expect.any(String) })
    expect(api.calls()).toMatchObject([{ request: { id: 'req', orgId: 'acme' }, status: 200 }])
  })
})
