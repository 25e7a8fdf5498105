import type * as z from 'zod'
import type { PutUser } from '../api/data-file.ts'
import { controlPaths } from '../base/control-paths.ts'
import { identifyCurlLine } from '../base/curl-line.ts'
import {
  ApiError,
  InvalidInput,
  jsonResponse,
  toErrorResponse,
  type WireResponse,
} from '../base/errors.ts'
import { describeIssues } from '../base/issues.ts'
import { hashSecret, headerSecretSchema } from '../base/secrets.ts'
import {
  type IncomingRequest,
  mediaTypeOf,
  pathnameOf,
  type RequestHead,
  type WireRequest,
} from '../base/wire.ts'
import { journalQuerySchema, newestEntries, requestsQuerySchema } from '../core/journal.ts'
import type { MockCore } from '../core/mock-core.ts'
import { createRouteMatcher } from '../core/route-matcher.ts'
import { inspectorAsset } from '../inspector/assets.ts'
import {
  describeUser,
  listUsers,
  userListQuerySchema,
  userQuerySchema,
} from '../inspector/queries.ts'
import { shapesOf } from '../rules/answer-shapes.ts'
import { bearerCredential } from '../rules/authenticate.ts'
import { deleteUser } from '../rules/delete-user.ts'
import type { WebhookEventInput } from '../webhooks/events.ts'
import type { WebhookEndpointInput } from '../webhooks/webhook-schemas.ts'
import { controlEndpoints } from './control-endpoints.ts'

type Run = (
  core: MockCore,
  request: WireRequest,
  params: Record<string, string>,
) => Promise<WireResponse>

interface ControlRoute {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE'
  path: string
  run: Run
  /** Served without the control token: the inspector page's files, which hold no data. */
  open?: true
  /**
   * Served without the control token and with the controls off: the health check, which reveals
   * nothing and which container health checks and CI services call without credentials.
   */
  always?: true
}

const serveAsset: Run = async (_core, request) =>
  (await inspectorAsset(pathnameOf(request.target))) ?? toErrorResponse(new ApiError('notFound'))

/**
 * The control endpoints' route table: method, path, and what each does. Paths are matched
 * segment by segment, never as property names, so that a path such as `/__mock/__proto__` can
 * never reach a property of `Object.prototype`.
 */
export const controlRoutes = [
  {
    ...controlEndpoints.reset,
    run: async (core, request) => {
      const scope = readJsonObject(request, {})
      if (!scope) return refuse('The body must be empty, {} or {"orgId"}.')
      await core.reset(scope)
      return noContent
    },
  },
  { ...controlEndpoints.addFault, run: addFault },
  {
    ...controlEndpoints.listFaults,
    run: async (core) => jsonResponse(200, core.queuedFaults()),
  },
  {
    ...controlEndpoints.state,
    run: async (core) => ({
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: '',
      chunks: await core.stateJson(),
    }),
  },
  {
    ...controlEndpoints.requests,
    run: async (core, request) =>
      withQuery(request, requestsQuerySchema, ({ limit, orgId }) => ({
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: '',
        chunks: core.requestsJson({ orgId }, limit),
      })),
  },
  {
    ...controlEndpoints.health,
    run: async () => jsonResponse(200, { status: 'ok' }),
    always: true,
  },
  {
    method: 'GET',
    path: controlPaths.root,
    run: async () => ({ status: 308, headers: { location: controlPaths.inspector }, body: '' }),
  },
  { method: 'GET', path: controlPaths.inspector, run: serveAsset, open: true },
  { method: 'GET', path: controlPaths.inspectorStyle, run: serveAsset, open: true },
  { method: 'GET', path: controlPaths.inspectorScript, run: serveAsset, open: true },
  { ...controlEndpoints.listOrganisations, run: listOrganisations },
  {
    ...controlEndpoints.createOrganisation,
    run: async (core, request) => {
      const input = readJsonObject(request, {})
      if (!input) return refuse('The body must be a JSON object: {"orgId"?,"name"?,"users"?}.')
      const { orgId, apiKey } = await core.organisations.create(input)
      return jsonResponse(201, { orgId, apiKey })
    },
  },
  {
    ...controlEndpoints.removeOrganisation,
    run: async (core, _request, { orgId = '' }) => {
      await core.organisations.remove(orgId)
      return noContent
    },
  },
  {
    ...controlEndpoints.putUser,
    run: async (core, request, { orgId = '', id = '' }) => {
      const user = readJsonObject(request)
      if (!user) return refuse('The body must be a JSON object: a user of the data file.')
      const { created } = await core.organisations.putUser(orgId, id, user as PutUser)
      const shown = await core.transact((ctx) => describeUser(ctx, { orgId, id }))
      return jsonResponse(created ? 201 : 200, shown)
    },
  },
  {
    ...controlEndpoints.setShapes,
    run: async (core, request, { orgId = '' }) => {
      const body = readJsonObject(request)
      const keys = body ? Object.keys(body) : []
      if (!body || keys.length !== 1 || keys[0] !== 'shapes') {
        return refuse('The body must be a JSON object: {"shapes": "full" | "varied" | <case>}.')
      }
      await core.organisations.setShapes(orgId, body.shapes as string)
      return noContent
    },
  },
  {
    ...controlEndpoints.shapeCases,
    run: async (core) => jsonResponse(200, { cases: core.shapes.cases() }),
  },
  {
    method: 'GET',
    path: controlPaths.users,
    run: async (core, request) =>
      withQuery(request, userListQuerySchema, async (query) =>
        jsonResponse(200, await core.transact((ctx) => listUsers(ctx, query))),
      ),
  },
  {
    method: 'GET',
    path: controlPaths.user,
    run: async (core, request) =>
      withQuery(request, userQuerySchema, async (query) =>
        jsonResponse(200, await core.transact((ctx) => describeUser(ctx, query))),
      ),
  },
  {
    method: 'DELETE',
    path: controlPaths.user,
    run: async (core, request) =>
      withQuery(request, userQuerySchema, async (query) =>
        jsonResponse(200, await core.transact((ctx) => deleteUser(ctx, query.orgId, query))),
      ),
  },
  { ...controlEndpoints.addWebhook, run: addWebhook },
  {
    ...controlEndpoints.listWebhooks,
    // The secrets are shown once, in the answer that creates an endpoint (and in the banner).
    run: async (core) =>
      jsonResponse(
        200,
        core.webhooks.list().map(({ secret: _, ...endpoint }) => endpoint),
      ),
  },
  {
    ...controlEndpoints.webhookDeliveries,
    run: async (core, request) =>
      withQuery(request, journalQuerySchema, ({ limit }) =>
        jsonResponse(200, newestEntries(core.webhooks.deliveries(), limit)),
      ),
  },
  {
    ...controlEndpoints.removeWebhook,
    run: async (core, _request, { id = '' }) => {
      if (!core.webhooks.remove(id)) throw new ApiError('webhookNotFound')
      return noContent
    },
  },
  { ...controlEndpoints.raiseEvent, run: raiseEvent },
] as const satisfies readonly ControlRoute[]

const matchControlRoute = createRouteMatcher<ControlRoute>(controlRoutes)

/** The paths served without the control token. */
const openPaths = new Set<string>(
  controlRoutes
    .filter((route): boolean => 'open' in route || 'always' in route)
    .map((route) => route.path),
)

/** The paths served even with the controls off. */
const alwaysPaths = new Set<string>(
  controlRoutes.filter((route): boolean => 'always' in route).map((route) => route.path),
)

const noContent: WireResponse = { status: 204, headers: {}, body: '' }

/** How the control endpoints are exposed. */
export interface ControlOptions {
  /**
   * `false` answers every `/__mock` request 404 `Not found`, as if the endpoints did not exist,
   * except `/__mock/health`, which container health checks rely on.
   */
  enabled?: boolean
  /**
   * Requires `Authorization: Bearer <token>` on every `/__mock` request (401 otherwise), checked
   * before anything else so that a client without it learns nothing; the inspector page's files
   * and `/__mock/health` (which hold no data) excepted.
   */
  token?: string
}

/**
 * The control endpoints of `core` (reset, faults, state, requests, health, and the inspector
 * page with the data it reads), as `options` expose them. The token is kept only as its hash, and
 * checked, with the cross-site rules, before the body is read. Bad input gets an `{code, message}`
 * body like the API's errors, with a message that says what is wrong; `undefined` when the client
 * went away before its body arrived.
 *
 * @example
 * const control = createControlHandler(core, { token: 'let-me-in' })
 * await control({ method: 'POST', target: '/__mock/reset', headers, body: null })
 */
export function createControlHandler(
  core: MockCore,
  options: ControlOptions = {},
): (request: IncomingRequest) => Promise<WireResponse | undefined> {
  const { enabled = true, token } = options
  const checked = headerSecretSchema.optional().safeParse(token)
  if (!checked.success) {
    throw new InvalidInput(`Invalid control token: ${checked.error.issues[0]?.message}`)
  }
  const tokenHash = token === undefined ? undefined : hashSecret(token)
  return async (request) => {
    if (isCrossSite(request) || isWebhookDelivery(request)) {
      return toErrorResponse(new ApiError('forbidden'))
    }
    const pathname = pathnameOf(request.target)
    if (!enabled && !alwaysPaths.has(pathname)) return toErrorResponse(new ApiError('notFound'))
    if (tokenHash !== undefined && !openPaths.has(pathname)) {
      const presented = bearerCredential(request.headers.get('authorization'))
      if (presented === undefined || hashSecret(presented) !== tokenHash) {
        return toErrorResponse(
          new ApiError('unauthorized', { headers: { 'www-authenticate': 'Bearer' } }),
        )
      }
    }
    // Read only for a request let in, and only by a route that takes a body: a stranger's body,
    // or one sent to the health check, the inspector's files or a read, costs the server nothing.
    const reads = takesBody(request)
    const body = reads ? await request.readBody() : { body: null }
    if (body === undefined) return undefined
    const read: WireRequest = { ...request, ...body }
    if (!isJsonOrBodiless(read, !reads)) {
      return refuse("A control request's body must be sent with Content-Type: application/json.")
    }
    return handleControl(core, read)
  }
}

/** Whether the route a request names takes a body (`POST` and `PUT`); not a path no route has. */
function takesBody(request: RequestHead): boolean {
  try {
    const { route } = matchControlRoute(request.method, pathnameOf(request.target))
    return route.method === 'POST' || route.method === 'PUT'
  } catch {
    return false
  }
}

/**
 * Whether a request comes from another site's page: an `Origin` other than the server's own
 * (`http://` and the request's `Host`), or a browser's `Sec-Fetch-Site` saying so. A page on
 * another port of the same machine is `same-site`, and refused too.
 */
function isCrossSite(request: RequestHead): boolean {
  const site = request.headers.get('sec-fetch-site')?.toLowerCase()
  if (site === 'cross-site' || site === 'same-site') return true
  const origin = request.headers.get('origin')
  const own = `http://${request.headers.get('host') ?? ''}`
  return origin !== null && origin.toLowerCase() !== own.toLowerCase()
}

/**
 * Whether a request is a signed webhook delivery (it carries `svix-signature`): the mock's own,
 * sent to an endpoint that names a control URL (`…/__mock/reset`), must not drive the mock.
 */
function isWebhookDelivery(request: RequestHead): boolean {
  return request.headers.get('svix-signature') !== null
}

/**
 * Whether a control request is one no HTML form can send: a `Content-Type` of `application/json`
 * (parameters allowed), or no `Content-Type` and no body. A body left `unread` (its route takes
 * none) counts as sent when the head announces one: the rule is the same for every route.
 */
function isJsonOrBodiless(request: WireRequest, unread: boolean): boolean {
  const mediaType = mediaTypeOf(request)
  if (mediaType !== undefined) return mediaType === 'application/json'
  if (unread) {
    const length = request.headers.get('content-length')
    return request.headers.get('transfer-encoding') === null && !(Number(length) > 0)
  }
  return !request.bodyTooLarge && (request.body?.byteLength ?? 0) === 0
}

/**
 * Answers a request to `/__mock/…` with every endpoint open: what {@link createControlHandler}
 * does once the request is let in. An input the mock refuses ({@link InvalidInput}) answers 400
 * with what is wrong; any other exception is a bug, and answers 500.
 */
export async function handleControl(core: MockCore, request: WireRequest): Promise<WireResponse> {
  try {
    const { route, params } = matchControlRoute(request.method, pathnameOf(request.target))
    return await route.run(core, request, params)
  } catch (error) {
    return error instanceof InvalidInput ? refuse(error.message) : toErrorResponse(error)
  }
}

async function addFault(core: MockCore, request: WireRequest): Promise<WireResponse> {
  const fault = readJsonObject(request)
  if (!fault) {
    return refuse(
      'The body must be a JSON object: {"operation","status","count"?,"delayMs"?,"orgId"?,"id"?}.',
    )
  }
  const { operation, ...options } = fault
  core.failNext(operation as 'identify', options as { status: number })
  return noContent
}

async function addWebhook(core: MockCore, request: WireRequest): Promise<WireResponse> {
  const endpoint = readJsonObject(request)
  if (!endpoint) return refuse('The body must be a JSON object: {"url","secret"?,"events"?}.')
  return jsonResponse(201, core.webhooks.add(endpoint as WebhookEndpointInput))
}

async function raiseEvent(core: MockCore, request: WireRequest): Promise<WireResponse> {
  const event = readJsonObject(request)
  if (!event) return refuse('The body must be a JSON object: {"type", …}.')
  return jsonResponse(202, await core.events.raise(event as WebhookEventInput))
}

/** The body as a JSON object (`empty` for no body, when given); `undefined` when it is anything else. */
function readJsonObject(
  request: WireRequest,
  empty?: Record<string, unknown>,
): Record<string, unknown> | undefined {
  if (empty && (request.body?.byteLength ?? 0) === 0 && !request.bodyTooLarge) return empty
  let value: unknown
  try {
    value = JSON.parse(new TextDecoder().decode(request.body ?? new Uint8Array()))
  } catch {
    return undefined
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined
  return value as Record<string, unknown>
}

/** The 400 of a control request the mock refuses, saying what is wrong. */
function refuse(message: string): WireResponse {
  return toErrorResponse(new ApiError('invalidControlInput', { message }))
}

/**
 * The organisations with their API keys in clear, as the banner shows them, the answer shapes each
 * answers in, and a curl line.
 */
async function listOrganisations(core: MockCore, request: WireRequest): Promise<WireResponse> {
  // The curl line is pasted into a shell: only a plain host name or address goes into it.
  const host = request.headers.get('host')?.match(/^[A-Za-z0-9.:[\]-]+$/)?.[0]
  const listed = core.credentials.slice(0, core.options.maxOrganisations)
  const shapes = await core.transact((ctx) => listed.map((org) => shapesOf(ctx, org.orgId)))
  const organisations = listed.map((org, i) => ({
    ...org,
    shapes: shapes[i],
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
  if (!parsed.success) return refuse(`Invalid query: ${describeIssues(parsed.error.issues)}`)
  return answer(parsed.data)
}
