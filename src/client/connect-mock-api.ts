import type { OrganisationInput, PutUser } from '../api/data-file.ts'
import type { ShapeCase, Shapes } from '../api/shape-cases.ts'
import { ApiError, type ApiErrorCode, apiErrors } from '../base/errors.ts'
import { type ControlEndpoint, controlEndpoints } from '../control/control-endpoints.ts'
import type { FaultOptions, Operation, QueuedFaultView } from '../core/faults.ts'
import { type CallOf, type CallScope, callsIn, type JournalEntry } from '../core/journal.ts'
import type { PutUserResult } from '../core/mock-core.ts'
import type { Tenant } from '../core/tenant.ts'
import type { MockState } from '../model/database.ts'
import type { Credentials } from '../model/dataset.ts'
import type { WebhookEventInput } from '../webhooks/events.ts'
import type {
  RaisedWebhookEvent,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointInput,
} from '../webhooks/webhook-schemas.ts'
import { MockApiClientError } from './client-error.ts'

/** How {@link connectMockApi} reaches the server. */
export interface ConnectOptions {
  /** The server's `--control-token`, sent as `Authorization: Bearer` on every control call. */
  controlToken?: string
  /**
   * How long one control call may take, its answer read whole, in milliseconds (30,000 by
   * default): past it, the call rejects with a {@link MockApiClientError} `timeout`.
   */
  timeoutMs?: number
}

/** How long a control call may take by default, in milliseconds. */
const defaultTimeoutMs = 30_000

/**
 * A running standalone server's controls over HTTP: the in-process `MockApi`'s names and
 * signatures, each awaited. Every error answer rejects with an {@link ApiError} carrying its
 * status (a 400's message says what is wrong); no answer in time, no answer at all or one that is
 * not the endpoint's, with a {@link MockApiClientError}.
 */
export interface MockApiClient {
  /** The server's URL, as given (without a trailing `/`). */
  readonly url: string
  /** Resolves once the server answers its health check; rejects when it does not. */
  readonly ready: Promise<void>
  /** The organisations and their API keys in clear, as the banner prints them. */
  readonly credentials: Promise<Credentials[]>
  /** Back to the start; with `{ orgId }`, only that organisation. */
  reset(scope?: { orgId?: string }): Promise<void>
  /** Queues a fault: the next `count` calls of `operation` (scoped by `orgId`, `id`) answer `status`. */
  failNext(operation: Operation, fault: FaultOptions): Promise<void>
  /** The faults still queued, in the order they will be taken. */
  queuedFaults(): Promise<QueuedFaultView[]>
  /** Every record, one array per collection. */
  state(): Promise<MockState>
  /** The journal, oldest first; with `{ orgId }`, only that organisation's. */
  requests(scope?: CallScope): Promise<JournalEntry[]>
  /** The API calls (of `operation` if given), oldest first; with `{ orgId }`, only that organisation's. */
  calls<O extends Operation = Operation>(operation?: O, scope?: CallScope): Promise<CallOf<O>[]>
  readonly organisations: {
    /** Creates an organisation; resolves to its {@link Tenant} handle. */
    create(input?: OrganisationInput): Promise<Tenant>
    remove(orgId: string): Promise<void>
    putUser(orgId: string, id: string, user: PutUser): Promise<PutUserResult>
    /** Sets the organisation's own answer shapes: `full`, `varied` or a case's name. */
    setShapes(orgId: string, shapes: Shapes): Promise<void>
  }
  /** The answer shapes' covering set. */
  readonly shapes: {
    cases(): Promise<ShapeCase[]>
  }
  readonly webhooks: {
    /** Registers an endpoint: the answer is the only one that shows its secret. */
    add(endpoint: WebhookEndpointInput): Promise<WebhookEndpoint>
    /** `false` when there was none. */
    remove(id: string): Promise<boolean>
    /** The endpoints, without their secrets. */
    list(): Promise<Omit<WebhookEndpoint, 'secret'>[]>
    deliveries(): Promise<WebhookDelivery[]>
  }
  readonly events: {
    raise(input: WebhookEventInput): Promise<RaisedWebhookEvent>
  }
}

type EndpointName = keyof typeof controlEndpoints

interface Call {
  params?: Record<string, string>
  query?: Record<string, string | undefined>
  body?: unknown
}

/**
 * Connects to a running standalone server (`identify-api-mock serve`, `startServer`, the image)
 * and gives its control endpoints as the in-process `MockApi` gives its controls: same names,
 * same signatures, awaited. `organisations.create()` resolves to a {@link Tenant} whose
 * controls touch only it. Uses only the platform's `fetch`.
 *
 * @example
 * import { connectMockApi } from 'identify-api-mock/client'
 *
 * const api = connectMockApi('http://127.0.0.1:4010')
 * const tenant = await api.organisations.create()
 * await tenant.failNext('identify', { status: 500 })
 * const calls = await tenant.calls('identify')
 * await tenant.remove()
 */
export function connectMockApi(url: string, options: ConnectOptions = {}): MockApiClient {
  const base = url.replace(/\/+$/, '')
  const authorization = options.controlToken && `Bearer ${options.controlToken}`
  const { timeoutMs = defaultTimeoutMs } = options

  /** The answer of `name`, its body read whole, within the timeout; typed errors otherwise. */
  const send = async (name: EndpointName, call: Call = {}): Promise<Answer> => {
    const endpoint: ControlEndpoint = controlEndpoints[name]
    const path = endpoint.path.replace(/:(\w+)/g, (_, param: string) =>
      encodeURIComponent(call.params?.[param] ?? ''),
    )
    const query = Object.entries(call.query ?? {}).filter(
      (entry): entry is [string, string] => entry[1] !== undefined,
    )
    const search = query.length > 0 ? `?${new URLSearchParams(query)}` : ''
    const headers: Record<string, string> = {}
    if (authorization) headers.authorization = authorization
    if (call.body !== undefined) headers['content-type'] = 'application/json'
    const target = `${endpoint.method} ${base}${path}${search}`
    const signal = AbortSignal.timeout(timeoutMs)
    let answer: Answer
    try {
      const response = await fetch(`${base}${path}${search}`, {
        method: endpoint.method,
        headers,
        body: call.body === undefined ? undefined : JSON.stringify(call.body),
        signal,
      })
      answer = {
        status: response.status,
        statusText: response.statusText,
        text: await response.text(),
      }
    } catch (error) {
      throw signal.aborted
        ? new MockApiClientError('timeout', `${target}: no answer within ${timeoutMs} ms`, {
            cause: error,
          })
        : new MockApiClientError('unreachable', `${target}: no answer (${reasonOf(error)})`, {
            cause: error,
          })
    }
    if (answer.status < 200 || answer.status >= 300) throw errorOf(answer, target)
    return answer
  }
  const json = async <T>(name: EndpointName, call?: Call): Promise<T> => {
    const { status, text } = await send(name, call)
    try {
      return JSON.parse(text) as T
    } catch (error) {
      const { method, path } = controlEndpoints[name]
      throw new MockApiClientError(
        'invalid-answer',
        `${method} ${base}${path} answered ${status} with a body that is not JSON: ${JSON.stringify(text.slice(0, 100))}`,
        { cause: error },
      )
    }
  }
  const done = async (name: EndpointName, call?: Call): Promise<void> => {
    await send(name, call)
  }

  const client: MockApiClient = {
    url: base,
    get ready() {
      return done('health')
    },
    get credentials() {
      return json<{ organisations: Array<Credentials & { curl: unknown }> }>(
        'listOrganisations',
      ).then(({ organisations }) =>
        organisations.map(({ orgId, name, apiKeys }) => ({ orgId, name, apiKeys })),
      )
    },
    reset: (scope = {}) => done('reset', { body: scope }),
    failNext: (operation, fault) => done('addFault', { body: { operation, ...fault } }),
    queuedFaults: () => json('listFaults'),
    state: () => json('state'),
    requests: (scope = {}) => json('requests', { query: { orgId: scope.orgId } }),
    calls: async (operation, scope) => callsIn(await client.requests(scope), operation),
    organisations: {
      create: async (input = {}) => {
        const { orgId, apiKey } = await json<{ orgId: string; apiKey: string }>(
          'createOrganisation',
          { body: input },
        )
        return httpTenant(client, orgId, apiKey)
      },
      remove: (orgId) => done('removeOrganisation', { params: { orgId } }),
      putUser: async (orgId, id, user) => {
        const { status } = await send('putUser', { params: { orgId, id }, body: user })
        return { created: status === 201 }
      },
      setShapes: (orgId, shapes) => done('setShapes', { params: { orgId }, body: { shapes } }),
    },
    shapes: {
      cases: () => json<{ cases: ShapeCase[] }>('shapeCases').then(({ cases }) => cases),
    },
    webhooks: {
      add: (endpoint) => json('addWebhook', { body: endpoint }),
      remove: (id) =>
        done('removeWebhook', { params: { id } }).then(
          () => true,
          (error: unknown) => {
            if (error instanceof ApiError && error.code === 'webhookNotFound') return false
            throw error
          },
        ),
      list: () => json('listWebhooks'),
      deliveries: () => json('webhookDeliveries'),
    },
    events: {
      raise: (input) => json('raiseEvent', { body: input }),
    },
  }
  return client
}

/** The {@link Tenant} of organisation `orgId`, over the client's scoped controls. */
function httpTenant(client: MockApiClient, orgId: string, apiKey: string): Tenant {
  return {
    orgId,
    apiKey,
    baseUrl: client.url,
    reset: () => client.reset({ orgId }),
    failNext: (operation, fault) => client.failNext(operation, { ...fault, orgId }),
    calls: (operation) => client.calls(operation, { orgId }),
    putUser: (id, user) => client.organisations.putUser(orgId, id, user),
    setShapes: (shapes) => client.organisations.setShapes(orgId, shapes),
    remove: () => client.organisations.remove(orgId),
  }
}

/** An answer of the server, its body read whole. */
interface Answer {
  status: number
  statusText: string
  text: string
}

/** Why a request got no answer, in a few words: the system's code (`ECONNREFUSED`) if any. */
function reasonOf(error: unknown): string {
  const cause = error instanceof Error ? error.cause : undefined
  const code = cause instanceof Error && 'code' in cause ? cause.code : undefined
  if (typeof code === 'string') return code
  return error instanceof Error ? error.message : String(error)
}

/**
 * The {@link ApiError} of an error answer of the mock (`{code, message}`, `code` its status): the
 * row of the error table with its status and message, or the first row with its status, keeping
 * the answer's message (a 400 saying what is wrong). Any other error answer (a proxy's page, a
 * status the mock never gives) is a {@link MockApiClientError} `invalid-answer`.
 */
function errorOf(response: Answer, target: string): Error {
  const { status, text } = response
  let message: string | undefined
  try {
    const body: unknown = JSON.parse(text)
    if (typeof body === 'object' && body !== null && 'code' in body && body.code === status) {
      message = 'message' in body ? String(body.message) : undefined
    }
  } catch {
    message = undefined
  }
  const rows = Object.entries(apiErrors) as Array<[ApiErrorCode, (typeof apiErrors)[ApiErrorCode]]>
  const exact = rows.find(([, row]) => row.status === status && row.message === message)
  const [code] = exact ?? rows.find(([, row]) => row.status === status) ?? []
  if (message === undefined || code === undefined) {
    return new MockApiClientError(
      'invalid-answer',
      `${target} answered ${status} ${response.statusText}, not an error of the mock: ${JSON.stringify(text.slice(0, 100))}`,
    )
  }
  return new ApiError(code, { message })
}

export { ApiError, type ApiErrorCode } from '../base/errors.ts'
export type { Tenant, TenantFault } from '../core/tenant.ts'
export { MockApiClientError, type MockApiClientErrorCode } from './client-error.ts'
