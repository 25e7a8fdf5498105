import { setupServer } from 'msw/node'
import type {
  Credentials,
  Fault,
  JournalEntry,
  MockApiOptions,
  MockState,
} from '../../src/index.ts'
import { createMockApi } from '../../src/index.ts'

/**
 * One way in to a running mock, as the conformance suite drives it: requests go to `url()`, the
 * controls are the programmatic API in-process and the `/__mock` endpoints over HTTP.
 */
export interface Target {
  url(path: string): string
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
  return {
    url: (path) => baseUrl + path,
    credentials: api.credentials,
    reset: () => api.reset(),
    failNext: async ({ operation, ...fault }) => api.failNext(operation, fault),
    state: () => api.state(),
    requests: async () => api.requests(),
    close: async () => {},
  }
}
