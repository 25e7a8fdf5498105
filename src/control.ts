import type { z } from 'zod'
import { controlPaths } from './control-paths.ts'
import { identifyCurlLine } from './curl-line.ts'
import {
  ApiError,
  describeIssues,
  jsonResponse,
  toErrorResponse,
  type WireResponse,
} from './errors.ts'
import { inspectorAssets } from './inspector/assets.ts'
import {
  describeUser,
  listUsers,
  userListQuerySchema,
  userQuerySchema,
} from './inspector/queries.ts'
import { journalQuerySchema } from './journal.ts'
import type { MockCore } from './mock-core.ts'
import { bearerCredential } from './rules/authenticate.ts'
import { deleteUser } from './rules/delete-user.ts'
import { hashSecret } from './secrets.ts'
import { pathnameOf, type WireRequest } from './wire.ts'

type Run = (core: MockCore, request: WireRequest) => Promise<WireResponse>

interface ControlRoute {
  /** What each method does; any other method is a 405 with `Allow`. */
  methods: Partial<Record<'GET' | 'POST' | 'DELETE', Run>>
  /** Served without the control token: the inspector page's files, which hold no data. */
  open?: true
}

/** The most organisations `GET /__mock/organisations` lists. */
const maxOrganisations = 1000

const serveAsset: Run = async (_core, request) =>
  inspectorAssets.get(pathnameOf(request.target)) ?? toErrorResponse(new ApiError('notFound'))

/**
 * The control endpoints' route table: path, methods, and what each does. A `Map`, so that a path
 * such as `/__mock/__proto__` can never reach a property of `Object.prototype`.
 */
const controlRoutes = new Map<string, ControlRoute>([
  [
    controlPaths.reset,
    {
      methods: {
        POST: async (core) => {
          await core.reset()
          return noContent
        },
      },
    },
  ],
  [
    controlPaths.faults,
    {
      methods: {
        POST: addFault,
        GET: async (core) => jsonResponse(200, core.queuedFaults()),
      },
    },
  ],
  [controlPaths.state, { methods: { GET: async (core) => jsonResponse(200, await core.state()) } }],
  [
    controlPaths.requests,
    {
      methods: {
        GET: async (core, request) =>
          withQuery(request, journalQuerySchema, ({ limit }) =>
            jsonResponse(200, limit ? core.requests().slice(-limit) : core.requests()),
          ),
      },
    },
  ],
  [controlPaths.health, { methods: { GET: async () => jsonResponse(200, { status: 'ok' }) } }],
  [
    controlPaths.root,
    {
      methods: {
        GET: async () => ({ status: 308, headers: { location: controlPaths.inspector }, body: '' }),
      },
    },
  ],
  [controlPaths.inspector, { open: true, methods: { GET: serveAsset } }],
  [controlPaths.inspectorStyle, { open: true, methods: { GET: serveAsset } }],
  [controlPaths.inspectorScript, { open: true, methods: { GET: serveAsset } }],
  [controlPaths.organisations, { methods: { GET: listOrganisations } }],
  [
    controlPaths.users,
    {
      methods: {
        GET: async (core, request) =>
          withQuery(request, userListQuerySchema, async (query) =>
            jsonResponse(200, await core.transact((ctx) => listUsers(ctx, query))),
          ),
      },
    },
  ],
  [
    controlPaths.user,
    {
      methods: {
        GET: async (core, request) =>
          withQuery(request, userQuerySchema, async (query) =>
            jsonResponse(200, await core.transact((ctx) => describeUser(ctx, query))),
          ),
        DELETE: async (core, request) =>
          withQuery(request, userQuerySchema, async (query) =>
            jsonResponse(200, await core.transact((ctx) => deleteUser(ctx, query.orgId, query))),
          ),
      },
    },
  ],
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
 * The control endpoints of `core` (reset, faults, state, requests, health, and the inspector
 * page with the data it reads), as `options` expose them. The token is kept only as its hash. Bad input gets an `{code, message}` body like the
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
    if (tokenHash !== undefined && !controlRoutes.get(pathnameOf(request.target))?.open) {
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
  const route = controlRoutes.get(pathnameOf(request.target))
  if (!route) return toErrorResponse(new ApiError('notFound'))
  const run = route.methods[request.method as keyof ControlRoute['methods']]
  if (!Object.hasOwn(route.methods, request.method) || !run) {
    const allow = Object.keys(route.methods).join(', ')
    return toErrorResponse(new ApiError('methodNotAllowed', { allow }))
  }
  try {
    return await run(core, request)
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

/** The organisations with their API keys in clear, as the banner shows them, and a curl line. */
async function listOrganisations(core: MockCore, request: WireRequest): Promise<WireResponse> {
  // The curl line is pasted into a shell: only a plain host name or address goes into it.
  const host = request.headers.get('host')?.match(/^[A-Za-z0-9.:[\]-]+$/)?.[0]
  const organisations = core.credentials.slice(0, maxOrganisations).map((org) => ({
    ...org,
    curl:
      host && org.apiKeys[0] ? identifyCurlLine(`http://${host}`, org.orgId, org.apiKeys[0]) : null,
  }))
  return jsonResponse(200, { organisations, total: core.credentials.length })
}

/** Parses the query with `schema` and answers with `answer`, or 400 saying what is wrong. */
async function withQuery<S extends z.ZodType>(
  request: WireRequest,
  schema: S,
  answer: (query: z.output<S>) => WireResponse | Promise<WireResponse>,
): Promise<WireResponse> {
  const search = new URL(request.target, 'http://control.invalid').searchParams
  const parsed = schema.safeParse(Object.fromEntries(search))
  if (!parsed.success) return badRequest(`Invalid query: ${describeIssues(parsed.error.issues)}`)
  return answer(parsed.data)
}
