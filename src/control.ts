import { ApiError, jsonResponse, toErrorResponse, type WireResponse } from './errors.ts'
import type { MockCore } from './mock-core.ts'
import { createRouteMatcher } from './routes.ts'
import { bearerCredential } from './rules/authenticate.ts'
import { hashSecret } from './secrets.ts'
import type { WebhookEndpointInput, WebhookEventInput } from './webhooks/schemas.ts'
import { pathnameOf, type WireRequest } from './wire.ts'

type ControlRoute = {
  method: string
  path: string
  run: (
    core: MockCore,
    request: WireRequest,
    params: Record<string, string>,
  ) => Promise<WireResponse>
}

/**
 * The control endpoints' route table: path, method, and what each does. Paths are matched
 * segment by segment, never as property names, so that a path such as `/__mock/__proto__` can
 * never reach a property of `Object.prototype`.
 */
export const controlRoutes = [
  {
    method: 'POST',
    path: '/__mock/reset',
    run: async (core) => {
      await core.reset()
      return noContent
    },
  },
  { method: 'POST', path: '/__mock/faults', run: addFault },
  {
    method: 'GET',
    path: '/__mock/state',
    run: async (core) => jsonResponse(200, await core.state()),
  },
  {
    method: 'GET',
    path: '/__mock/requests',
    run: async (core) => jsonResponse(200, core.requests()),
  },
  { method: 'GET', path: '/__mock/health', run: async () => jsonResponse(200, { status: 'ok' }) },
  { method: 'POST', path: '/__mock/webhooks', run: addWebhook },
  {
    method: 'GET',
    path: '/__mock/webhooks',
    // The secrets are shown once, in the answer that creates an endpoint (and in the banner).
    run: async (core) =>
      jsonResponse(
        200,
        core.webhooks.list().map(({ secret: _, ...endpoint }) => endpoint),
      ),
  },
  {
    method: 'GET',
    path: '/__mock/webhooks/deliveries',
    run: async (core) => jsonResponse(200, core.webhooks.deliveries()),
  },
  {
    method: 'DELETE',
    path: '/__mock/webhooks/:id',
    run: async (core, _request, { id = '' }) => {
      if (!core.webhooks.remove(id)) throw new ApiError('webhookNotFound')
      return noContent
    },
  },
  { method: 'POST', path: '/__mock/events', run: raiseEvent },
] as const satisfies readonly ControlRoute[]

const matchControlRoute = createRouteMatcher<ControlRoute>(controlRoutes)

const noContent: WireResponse = { status: 204, headers: {}, body: '' }

/** Whether a request is for the control endpoints rather than the API. */
export function isControlRequest(request: WireRequest): boolean {
  return request.target.startsWith('/__mock/') || pathnameOf(request.target) === '/__mock'
}

/** How the control endpoints are exposed. */
export interface ControlOptions {
  /** `false` answers every `/__mock` request 404 `Not found`, as if the endpoints did not exist. */
  enabled?: boolean
  /**
   * Requires `Authorization: Bearer <token>` on every `/__mock` request (401 otherwise), checked
   * before anything else so that a client without it learns nothing.
   */
  token?: string
}

/** Answers a request to `/__mock/…`. */
export type ControlHandler = (request: WireRequest) => Promise<WireResponse>

/**
 * The control endpoints of `core` (reset, faults, state, requests, health), as `options` expose
 * them. The token is kept only as its hash. Bad input gets an `{code, message}` body like the
 * API's errors, with a message that says what is wrong.
 *
 * @example
 * const control = createControlHandler(core, { token: 'let-me-in' })
 * await control({ method: 'POST', target: '/__mock/reset', headers, body: null })
 */
export function createControlHandler(core: MockCore, options: ControlOptions = {}): ControlHandler {
  const { enabled = true, token } = options
  if (token === '') throw new TypeError('Invalid control token: it must not be empty')
  const tokenHash = token === undefined ? undefined : hashSecret(token)
  return async (request) => {
    if (!enabled) return toErrorResponse(new ApiError('notFound'))
    if (tokenHash !== undefined) {
      const presented = bearerCredential(request.headers.get('authorization'))
      if (presented === undefined || hashSecret(presented) !== tokenHash) {
        return toErrorResponse(new ApiError('unauthorized', { 'www-authenticate': 'Bearer' }))
      }
    }
    return handleControl(core, request)
  }
}

/**
 * Answers a request to `/__mock/…` with every endpoint open: what {@link createControlHandler}
 * does once the request is let in.
 */
export async function handleControl(core: MockCore, request: WireRequest): Promise<WireResponse> {
  try {
    const { route, params } = matchControlRoute(request.method, pathnameOf(request.target))
    return await route.run(core, request, params)
  } catch (error) {
    return toErrorResponse(error)
  }
}

async function addFault(core: MockCore, request: WireRequest): Promise<WireResponse> {
  const fault = readJsonObject(request)
  if (!fault) {
    return badRequest('The body must be a JSON object: {"operation","status","count"?,"delayMs"?}.')
  }
  const { operation, ...options } = fault
  return answerBadInput(() => {
    core.failNext(operation as 'identify', options as { status: number })
    return noContent
  })
}

async function addWebhook(core: MockCore, request: WireRequest): Promise<WireResponse> {
  const endpoint = readJsonObject(request)
  if (!endpoint) return badRequest('The body must be a JSON object: {"url","secret"?,"events"?}.')
  return answerBadInput(() =>
    jsonResponse(201, core.webhooks.add(endpoint as WebhookEndpointInput)),
  )
}

async function raiseEvent(core: MockCore, request: WireRequest): Promise<WireResponse> {
  const event = readJsonObject(request)
  if (!event) return badRequest('The body must be a JSON object: {"type", …}.')
  return answerBadInput(async () =>
    jsonResponse(202, await core.events.raise(event as WebhookEventInput)),
  )
}

/** The body as a JSON object; `undefined` when it is anything else. */
function readJsonObject(request: WireRequest): Record<string, unknown> | undefined {
  let value: unknown
  try {
    value = JSON.parse(new TextDecoder().decode(request.body ?? new Uint8Array()))
  } catch {
    return undefined
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined
  return value as Record<string, unknown>
}

/** The answer of `run`; a `TypeError` (input the control refuses) is a 400 with its message. */
async function answerBadInput(
  run: () => WireResponse | Promise<WireResponse>,
): Promise<WireResponse> {
  try {
    return await run()
  } catch (error) {
    if (error instanceof TypeError) return badRequest(error.message)
    throw error
  }
}

function badRequest(message: string): WireResponse {
  return jsonResponse(400, { code: 400, message })
}
