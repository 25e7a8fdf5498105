import { setupServer } from 'msw/node'
import type {
  Credentials,
  Fault,
  JournalEntry,
  MockApi,
  MockApiOptions,
  MockState,
} from '../../src/index.ts'
import { createMockApi } from '../../src/index.ts'
import { startServer } from '../../src/server/server.ts'

/**
 * One way in to a running mock, as the conformance suite drives it: requests go to `url()`, the
 * controls are the programmatic API in-process and the `/__mock` endpoints over HTTP.
 */
export interface Target {
  url(path: string): string
  /** The `fetch` that reaches this target. */
  fetch: typeof fetch
  credentials: Credentials[]
  reset(): Promise<void>
  failNext(fault: Fault): Promise<void>
  state(): Promise<MockState>
  requests(): Promise<JournalEntry[]>
  close(): Promise<void>
}

/** The options a conformance test may start a target with: those both ways in accept. */
export type TargetOptions = Pick<
  MockApiOptions,
  'strictUserGroups' | 'authFailureStatus' | 'organisations'
>

export type TargetFactory = (options?: TargetOptions) => Promise<Target>

const server = setupServer()
let listening = false
let targets = 0

/** An in-process mock pinned to an origin of its own, reached through `fetch`. */
function inProcess(api: MockApi, baseUrl: string, send: typeof fetch): Target {
  return {
    url: (path) => baseUrl + path,
    fetch: send,
    credentials: api.credentials,
    reset: () => api.reset(),
    failNext: async ({ operation, ...fault }) => api.failNext(operation, fault),
    state: () => api.state(),
    requests: async () => api.requests(),
    close: async () => {},
  }
}

/** The MSW handlers through `setupServer`, each target pinned to an origin of its own. */
export const inProcessTarget: TargetFactory = async (options = {}) => {
  if (!listening) {
    server.listen({ onUnhandledFrame: 'error' })
    listening = true
  }
  const baseUrl = `http://mock-${++targets}.test`
  const api = createMockApi({ ...options, baseUrl })
  server.use(...api.handlers)
  await api.ready
  return inProcess(api, baseUrl, fetch)
}

/** `api.fetch`, straight to `dispatch`: no msw, no socket; pinned to an origin of its own. */
export const mockFetchTarget: TargetFactory = async (options = {}) => {
  const baseUrl = `http://fetch-${++targets}.test`
  const api = createMockApi({ ...options, baseUrl })
  await api.ready
  return inProcess(api, baseUrl, api.fetch)
}

/** The standalone server over real HTTP on loopback, its controls through `/__mock`. */
export const httpTarget: TargetFactory = async (options = {}) => {
  const running = await startServer({ ...options, port: 0 })
  const control = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(running.url + path, {
      method,
      ...(body !== undefined && {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
    })
    if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`)
    return res.status === 204 ? undefined : res.json()
  }
  return {
    url: (path) => running.url + path,
    fetch,
    credentials: running.core.credentials,
    reset: async () => {
      await control('POST', '/__mock/reset')
    },
    failNext: async (fault) => {
      await control('POST', '/__mock/faults', fault)
    },
    state: () => control('GET', '/__mock/state'),
    requests: () => control('GET', '/__mock/requests'),
    close: () => running.close(),
  }
}
