import { ApiError, jsonResponse, toErrorResponse, type WireResponse } from './errors.ts'
import type { MockCore } from './mock-core.ts'
import { pathnameOf, type WireRequest } from './wire.ts'

/** The control endpoints' route table: path, method, and what each does. */
const controlRoutes: Record<
  string,
  { method: string; run: (core: MockCore, request: WireRequest) => Promise<WireResponse> }
> = {
  '/__mock/reset': {
    method: 'POST',
    run: async (core) => {
      await core.reset()
      return noContent
    },
  },
  '/__mock/faults': { method: 'POST', run: addFault },
  '/__mock/state': { method: 'GET', run: async (core) => jsonResponse(200, await core.state()) },
  '/__mock/requests': { method: 'GET', run: async (core) => jsonResponse(200, core.requests()) },
  '/__mock/health': { method: 'GET', run: async () => jsonResponse(200, { status: 'ok' }) },
}

const noContent: WireResponse = { status: 204, headers: {}, body: '' }

/** Whether a request is for the control endpoints rather than the API. */
export function isControlRequest(request: WireRequest): boolean {
  return request.target.startsWith('/__mock/') || pathnameOf(request.target) === '/__mock'
}

/**
 * Answers a request to `/__mock/…`: reset, faults, state, requests and health. Bad input gets an
 * `{code, message}` body like the API's errors, with a message that says what is wrong.
 *
 * @example
 * await handleControl(core, { method: 'POST', target: '/__mock/reset', headers, body: null })
 */
export async function handleControl(core: MockCore, request: WireRequest): Promise<WireResponse> {
  const route = controlRoutes[pathnameOf(request.target)]
  if (!route) return toErrorResponse(new ApiError('notFound'))
  if (route.method !== request.method) {
    return toErrorResponse(new ApiError('methodNotAllowed', { allow: route.method }))
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
  const { operation, ...options } = (fault ?? {}) as Record<string, unknown>
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
