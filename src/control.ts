import { ApiError, jsonResponse, toErrorResponse, type WireResponse } from './errors.ts'
import type { MockCore } from './mock-core.ts'
import { headerSecretSchema } from './options.ts'
import { bearerCredential } from './rules/authenticate.ts'
import { hashSecret } from './secrets.ts'
import { allowHeader, mediaTypeOf, pathnameOf, type WireRequest } from './wire.ts'

type ControlRoute = {
  method: string
  run: (core: MockCore, request: WireRequest) => Promise<WireResponse>
}

/**
 * The control endpoints' route table: path, method, and what each does. A `Map`, so that a path
 * such as `/__mock/__proto__` can never reach a property of `Object.prototype`.
 */
const controlRoutes = new Map<string, ControlRoute>([
  [
    '/__mock/reset',
    {
      method: 'POST',
      run: async (core) => {
        await core.reset()
        return noContent
      },
    },
  ],
  ['/__mock/faults', { method: 'POST', run: addFault }],
  ['/__mock/state', { method: 'GET', run: async (core) => jsonResponse(200, await core.state()) }],
  ['/__mock/requests', { method: 'GET', run: async (core) => jsonResponse(200, core.requests()) }],
  ['/__mock/health', { method: 'GET', run: async () => jsonResponse(200, { status: 'ok' }) }],
])

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
  const checked = headerSecretSchema.optional().safeParse(token)
  if (!checked.success) {
    throw new TypeError(`Invalid control token: ${checked.error.issues[0]?.message}`)
  }
  const tokenHash = token === undefined ? undefined : hashSecret(token)
  return async (request) => {
    if (isCrossSite(request)) return toErrorResponse(new ApiError('forbidden'))
    if (!enabled) return toErrorResponse(new ApiError('notFound'))
    if (tokenHash !== undefined) {
      const presented = bearerCredential(request.headers.get('authorization'))
      if (presented === undefined || hashSecret(presented) !== tokenHash) {
        return toErrorResponse(new ApiError('unauthorized', { 'www-authenticate': 'Bearer' }))
      }
    }
    if (!isJsonOrBodiless(request)) {
      return badRequest(
        "A control request's body must be sent with Content-Type: application/json.",
      )
    }
    return handleControl(core, request)
  }
}

/**
 * Whether a request comes from another site's page: an `Origin` other than the server's own
 * (`http://` and the request's `Host`), or a browser's `Sec-Fetch-Site` saying so. A page on
 * another port of the same machine is `same-site`, and refused too.
 */
function isCrossSite(request: WireRequest): boolean {
  const site = request.headers.get('sec-fetch-site')?.toLowerCase()
  if (site === 'cross-site' || site === 'same-site') return true
  const origin = request.headers.get('origin')
  const own = `http://${request.headers.get('host') ?? ''}`
  return origin !== null && origin.toLowerCase() !== own.toLowerCase()
}

/**
 * Whether a control request is one no HTML form can send: a `Content-Type` of `application/json`
 * (parameters allowed), or no `Content-Type` and no body.
 */
function isJsonOrBodiless(request: WireRequest): boolean {
  const mediaType = mediaTypeOf(request)
  if (mediaType !== undefined) return mediaType === 'application/json'
  return !request.bodyTooLarge && (request.body?.byteLength ?? 0) === 0
}

/**
 * Answers a request to `/__mock/…` with every endpoint open: what {@link createControlHandler}
 * does once the request is let in.
 */
export async function handleControl(core: MockCore, request: WireRequest): Promise<WireResponse> {
  const route = controlRoutes.get(pathnameOf(request.target))
  if (!route) return toErrorResponse(new ApiError('notFound'))
  const method = request.method === 'HEAD' ? 'GET' : request.method
  if (route.method !== method) {
    return toErrorResponse(new ApiError('methodNotAllowed', { allow: allowHeader([route.method]) }))
  }
  try {
    return await route.run(core, request)
  } catch (error) {
    return toErrorResponse(error)
  }
}

async function addFault(core: MockCore, request: WireRequest): Promise<WireResponse> {
  let fault: unknown
  try {
    fault = JSON.parse(new TextDecoder().decode(request.body ?? new Uint8Array()))
  } catch {
    return badRequest('The body must be a JSON object: {"operation","status","count"?,"delayMs"?}.')
  }
  if (typeof fault !== 'object' || fault === null || Array.isArray(fault)) {
    return badRequest('The body must be a JSON object: {"operation","status","count"?,"delayMs"?}.')
  }
  const { operation, ...options } = fault as Record<string, unknown>
  try {
    core.failNext(operation as 'identify', options as { status: number })
  } catch (error) {
    return badRequest(error instanceof Error ? error.message : String(error))
  }
  return noContent
}

function badRequest(message: string): WireResponse {
  return jsonResponse(400, { code: 400, message })
}
