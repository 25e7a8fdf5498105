import type { OutgoingHttpHeaders } from 'node:http'
import { setupServer } from 'msw/node'
import { afterAll, beforeAll } from 'vitest'
import { connectMockApi, type MockApiClient } from '../../src/client/connect-mock-api.ts'
import type { MockCore } from '../../src/root/advanced.ts'
import type {
  Credentials,
  Fault,
  JournalEntry,
  MockApi,
  MockApiOptions,
  MockState,
} from '../../src/root/index.ts'
import { createMockApi } from '../../src/root/index.ts'
import { type RunningServer, startServer } from '../../src/server/server.ts'
import { keepAliveAgent, type RawAnswer, sendRaw } from './http-client.ts'

/**
 * The mock behind a way in as the tests read it: a server's core or an in-process `MockApi`,
 * which has each of these (its controls read from the same core functions).
 */
type Core = Pick<
  MockCore,
  | 'ready'
  | 'db'
  | 'credentials'
  | 'dispatch'
  | 'reset'
  | 'failNext'
  | 'queuedFaults'
  | 'state'
  | 'requests'
  | 'calls'
  | 'redeemToken'
  | 'shapes'
  | 'events'
  | 'webhooks'
  | 'organisations'
>

/** A request as a client writes it: the target exactly as sent, headers in the order given. */
export interface RawRequest {
  method: string
  target: string
  headers?: Record<string, string> | Array<[string, string]>
  body?: Uint8Array | string | null
}

/** An answer as a test reads it. */
export type Answer = Pick<RawAnswer, 'status' | 'header' | 'text'>

/**
 * One way in to a running mock: the transport-free `dispatch`, the MSW handlers through
 * `setupServer` and `fetch`, `api.fetch`, or the standalone server over HTTP. Every suite that
 * runs against more than one way in (conformance, concurrency, properties, verify) drives this.
 */
export interface WayIn {
  /** The absolute URL of `path` on this way in. */
  url(path: string): string
  /** The `fetch` that reaches this way in. */
  fetch: typeof fetch
  /** Sends `request` as this way in carries it, the target and header values as given. */
  send(request: RawRequest): Promise<Answer>
  /** The mock behind this way in, in this process. */
  core: Core
  credentials: Credentials[]
  /** The controls as a user of this way in reaches them: in-process, or `/__mock` over HTTP. */
  reset(): Promise<void>
  failNext(fault: Fault): Promise<void>
  state(): Promise<MockState>
  requests(): Promise<JournalEntry[]>
  close(): Promise<void>
}

/** The options a way in may start with: those every way in accepts. */
export type WayInOptions = Pick<
  MockApiOptions,
  'strictUserGroups' | 'authFailureStatus' | 'organisations' | 'now' | 'journalSize'
>

/** Starts a fresh mock behind one way in. */
export type StartWayIn = (options?: WayInOptions) => Promise<WayIn>

const pairsOf = (headers: RawRequest['headers'] = []) =>
  Array.isArray(headers) ? headers : Object.entries(headers)

const bytesOf = (body: RawRequest['body']) =>
  typeof body === 'string' ? new TextEncoder().encode(body) : (body ?? null)

/** Sends `request` with a standard `fetch` to `base`, and reads the answer. */
async function sendWith(send: typeof fetch, base: string, request: RawRequest): Promise<Answer> {
  const body = bytesOf(request.body)
  const response = await send(base + request.target, {
    method: request.method,
    headers: new Headers(pairsOf(request.headers)),
    ...(body && { body: new Uint8Array(body) }),
  })
  const text = await response.text()
  return { status: response.status, header: (name) => response.headers.get(name), text }
}

/** Calls `core.dispatch` in the same turn, so calls are queued in the order they are made. */
export async function dispatchRaw(core: Core, request: RawRequest): Promise<Answer> {
  const headers = new Map(pairsOf(request.headers).map(([name, v]) => [name.toLowerCase(), v]))
  const response = await core.dispatch({
    method: request.method,
    target: request.target,
    headers: { get: (name) => headers.get(name.toLowerCase()) ?? null },
    body: bytesOf(request.body),
  })
  return {
    status: response.status,
    header: (name) => response.headers[name] ?? null,
    text: response.body,
  }
}

let origins = 0
const msw = setupServer()
let mswListening = false

/** An in-process mock pinned to an origin of its own; `send` goes through `send`. */
async function inProcess(
  options: WayInOptions,
  host: string,
  send: (api: MockApi, base: string) => WayIn['send'],
): Promise<{ api: MockApi; way: WayIn }> {
  const base = `http://${host}-${++origins}.test`
  const api = createMockApi({ ...options, baseUrl: base })
  await api.ready
  const way: WayIn = {
    url: (path) => base + path,
    fetch: api.fetch,
    send: send(api, base),
    core: api,
    credentials: api.credentials,
    reset: () => api.reset(),
    failNext: async ({ operation, ...fault }) => api.failNext(operation, fault),
    state: () => api.state(),
    requests: async () => api.requests(),
    close: async () => {},
  }
  return { api, way }
}

/** `MockCore.dispatch`, called as a transport would: no `Request`, no socket, any header value. */
export const dispatchWayIn: StartWayIn = async (options = {}) =>
  (await inProcess(options, 'dispatch', (api) => (request) => dispatchRaw(api, request))).way

/** `api.fetch`, straight to `dispatch`: no msw, no socket. */
export const apiFetchWayIn: StartWayIn = async (options = {}) =>
  (
    await inProcess(
      options,
      'fetch',
      (api, base) => (request) => sendWith(api.fetch, base, request),
    )
  ).way

/** The MSW handlers through `setupServer`, reached with the global `fetch`. */
export const mswWayIn: StartWayIn = async (options = {}) => {
  if (!mswListening) {
    msw.listen({ onUnhandledFrame: 'error' })
    mswListening = true
  }
  const { api, way } = await inProcess(
    options,
    'mock',
    (_, base) => (request) => sendWith(fetch, base, request),
  )
  msw.use(...api.handlers)
  return { ...way, fetch }
}

/**
 * The standalone server over real HTTP on loopback: `send` writes the target byte for byte with
 * `node:http`, and the controls go through `/__mock`. `running` is the server itself.
 */
export const httpWayIn = async (
  options: WayInOptions = {},
): Promise<WayIn & { running: RunningServer }> => {
  const running = await startServer({ ...options, port: 0 })
  const way = overHttp(running.url, running.core.credentials, () => running.close(), running.core)
  return Object.assign(way, { running })
}

/**
 * A server reached over HTTP at `base`; `core` is there only when the server runs in this
 * process (not for another process or a container).
 */
export function overHttp(
  base: string,
  credentials: Credentials[],
  stop: () => Promise<void>,
  core?: Core,
): WayIn {
  const agent = keepAliveAgent(Number.POSITIVE_INFINITY)
  const control = controlOver((path) => base + path)
  return {
    url: (path) => base + path,
    fetch,
    send: (request) =>
      sendRaw(base, {
        method: request.method,
        target: request.target,
        headers: Object.fromEntries(pairsOf(request.headers)) as OutgoingHttpHeaders,
        body: bytesOf(request.body),
        agent,
      }),
    get core(): Core {
      if (core) return core
      throw new Error(`the mock at ${base} runs in another process: reach it over HTTP`)
    },
    credentials,
    reset: async () => {
      await control('POST', '/__mock/reset')
    },
    failNext: async (fault) => {
      await control('POST', '/__mock/faults', fault)
    },
    state: () => control('GET', '/__mock/state'),
    requests: () => control('GET', '/__mock/requests'),
    close: async () => {
      agent.destroy()
      await stop()
    },
  }
}

/**
 * One of {@link threeWaysIn} as a user's code reaches it: the `fetch` that reaches it, its base
 * URL, the controls a user arms it with, and whether its calls go over HTTP (to the server).
 */
export interface UserWayIn {
  fetch: typeof fetch
  baseUrl: string
  controls: MockApi | MockApiClient
  overHttp: boolean
}

/**
 * The three ways in a user reaches the mock by, for a test file that runs its calls on each: the
 * MSW handlers (`setupServer` and the global `fetch`) and `api.fetch`, both of one in-process mock
 * at `baseUrl` armed in process, and a standalone server over HTTP armed through
 * `connectMockApi`. The handlers listen and the server starts before the file's tests, both stop
 * after them: `server`, `client` and each `wayIn()` are there from then on.
 *
 * @example
 * const { ways } = threeWaysIn('https://example.test')
 * describe.each(ways)('on $name', ({ wayIn }) => { … })
 */
export function threeWaysIn(baseUrl: string) {
  const api = createMockApi({ baseUrl })
  const handlers = setupServer(...api.handlers)
  let running: { server: RunningServer; client: MockApiClient } | undefined
  beforeAll(async () => {
    handlers.listen({ onUnhandledFrame: 'bypass' })
    const server = await startServer({ port: 0 })
    running = { server, client: connectMockApi(server.url) }
  })
  afterAll(async () => {
    handlers.close()
    await running?.server.close()
  })
  const started = () => {
    if (running === undefined) throw new Error('the server starts before the tests, in beforeAll')
    return running
  }
  const ways: { name: string; wayIn: () => UserWayIn }[] = [
    {
      name: 'the server',
      wayIn: () => {
        const { server, client } = started()
        return { fetch, baseUrl: server.url, controls: client, overHttp: true }
      },
    },
    {
      name: 'the MSW handlers',
      wayIn: () => ({ fetch, baseUrl, controls: api, overHttp: false }),
    },
    {
      name: 'api.fetch',
      wayIn: () => ({ fetch: api.fetch, baseUrl, controls: api, overHttp: false }),
    },
  ]
  return {
    api,
    get server(): RunningServer {
      return started().server
    },
    get client(): MockApiClient {
      return started().client
    },
    ways,
  }
}

/**
 * Calls a control of the mock at `url(path)` as a user of `/__mock` does: a JSON body if any, and
 * the JSON answer (nothing for a 204); any other status than 2xx throws with the answer's text.
 */
export function controlOver(url: (path: string) => string) {
  return async (method: string, path: string, body?: unknown) => {
    const res = await fetch(url(path), {
      method,
      ...(body !== undefined && {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
    })
    if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`)
    return res.status === 204 ? undefined : res.json()
  }
}

/** Sends a JSON request with an API key through `dispatch`, and reads the JSON answer. */
export async function dispatchJson(
  core: Core,
  method: string,
  target: string,
  options: { key?: string; body?: unknown } = {},
) {
  const answer = await dispatchRaw(core, {
    method,
    target,
    headers: {
      'content-type': 'application/json',
      ...(options.key && { authorization: `Bearer ${options.key}` }),
    },
    body: options.body === undefined ? null : JSON.stringify(options.body),
  })
  return { status: answer.status, header: answer.header, body: JSON.parse(answer.text) }
}

/**
 * The JSON sizes of `records` added up, in characters, with no brackets or names between them:
 * how `maxStateBytes` counts the state.
 */
export function jsonSizeOf(records: readonly object[]): number {
  return records.reduce((sum, record) => sum + JSON.stringify(record).length, 0)
}

/** {@link jsonSizeOf} every record of `state`: what the mock's `stateBytes` must read. */
export function stateJsonSize(state: MockState): number {
  return jsonSizeOf(Object.values(state).flat())
}
