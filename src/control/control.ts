import * as z from 'zod'
import { controlPaths } from '../base/control-paths.ts'
import {
  ApiError,
  InvalidInput,
  jsonResponse,
  toErrorResponse,
  type WireResponse,
} from '../base/errors.ts'
import { hashSecret, headerSecretSchema } from '../base/secrets.ts'
import { controlSource } from '../base/shares.ts'
import {
  type IncomingRequest,
  mediaTypeOf,
  pathnameOf,
  type RequestHead,
  type WireRequest,
} from '../base/wire.ts'
import type { MockCore } from '../core/mock-core.ts'
import { createRouteMatcher } from '../core/route-matcher.ts'
import { inspectorAsset } from '../inspector/assets.ts'
import { bearerCredential } from '../rules/authenticate.ts'
import { createControlOpenApiDocument } from './control-openapi.ts'
import { type AnyControlRow, paramsOf, parseQuery } from './control-row.ts'
import { controlRows } from './control-surfaces.ts'

type Run = (
  core: MockCore,
  request: WireRequest,
  params: Record<string, string>,
) => Promise<WireResponse>

/** A route of `/__mock`: a control row's, or one of the inspector page's files. */
interface ControlRoute {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE'
  path: string
  run: Run
  /** Served without the control token: the inspector page's files, which hold no data. */
  open?: true
  /** Served without the control token and with the controls off (see `ControlRow.always`). */
  always?: true
}

const serveAsset: Run = async (_core, request) =>
  (await inspectorAsset(pathnameOf(request.target))) ?? toErrorResponse(new ApiError('notFound'))

let openApiText: string | undefined

/** The control endpoints' own OpenAPI document, built once on first request. */
const serveOpenApi: Run = async () => {
  openApiText ??= JSON.stringify(createControlOpenApiDocument())
  return { status: 200, headers: { 'content-type': 'application/json' }, body: openApiText }
}

/**
 * The inspector page and its files, and the controls' OpenAPI document: not controls, and open,
 * as they hold no data.
 */
const pageRoutes: ControlRoute[] = [
  {
    method: 'GET',
    path: controlPaths.root,
    run: async () => ({ status: 308, headers: { location: controlPaths.inspector }, body: '' }),
  },
  { method: 'GET', path: controlPaths.inspector, run: serveAsset, open: true },
  { method: 'GET', path: controlPaths.inspectorStyle, run: serveAsset, open: true },
  { method: 'GET', path: controlPaths.inspectorScript, run: serveAsset, open: true },
  { method: 'GET', path: controlPaths.openApi, run: serveOpenApi, open: true },
]

/**
 * The routes of `/__mock`: one per row of the control table, and the inspector page's. Paths are
 * matched segment by segment, never as property names, so that a path such as
 * `/__mock/__proto__` can never reach a property of `Object.prototype`.
 */
const controlRoutes: ControlRoute[] = [
  ...controlRows().map(
    ({ row }): ControlRoute => ({
      method: row.method,
      path: row.path,
      run: (core, request, params) => answerRow(core, row, request, params),
      ...(row.always && { always: true }),
    }),
  ),
  ...pageRoutes,
]

const matchControlRoute = createRouteMatcher<ControlRoute>(controlRoutes)

/** The paths served without the control token. */
const openPaths = new Set<string>(
  controlRoutes.filter((route) => route.open || route.always).map((route) => route.path),
)

/** The paths served even with the controls off. */
const alwaysPaths = new Set<string>(
  controlRoutes.filter((route) => route.always).map((route) => route.path),
)

const noContent: WireResponse = { status: 204, headers: {}, body: '' }

/**
 * How the control endpoints are exposed: the server's `control` and `controlToken` options, one
 * group of its options (see `serverOptionGroups`), so that an option added here reaches the
 * handler. Without the endpoints, every `/__mock` request answers 404 `Not found` but
 * `/__mock/health`, which container health checks rely on; the token is checked before anything
 * else, so that a client without it learns nothing (the inspector page's files and
 * `/__mock/health`, which hold no data, excepted).
 */
export const controlOptionsSchema = z.object({
  control: z
    .boolean()
    .default(true)
    .describe(
      'the /__mock control endpoints; without them every /__mock request answers 404, as if they did not exist',
    ),
  controlToken: z
    .string()
    .optional()
    .describe(
      'requires Authorization: Bearer <token> on every /__mock request (401 otherwise); visible ASCII only',
    ),
})

/** How the control endpoints are exposed (see {@link controlOptionsSchema}). */
export type ControlOptions = z.input<typeof controlOptionsSchema>

/**
 * The control endpoints of `core` (every row of the control table, and the inspector page), as
 * `options` expose them. The token is kept only as its hash, and checked, with the cross-site
 * rules, before the body is read. Bad input gets an `{code, message}` body like the API's errors,
 * with a message that says what is wrong; `undefined` when the client went away before its body
 * arrived.
 *
 * @example
 * const control = createControlHandler(core, { controlToken: 'let-me-in' })
 * await control({ method: 'POST', target: '/__mock/reset', headers, body: null })
 */
export function createControlHandler(
  core: MockCore,
  options: ControlOptions = {},
): (request: IncomingRequest) => Promise<WireResponse | undefined> {
  const read = controlOptionsSchema.safeParse(options)
  if (!read.success) {
    throw new InvalidInput(`Invalid control options: ${read.error.issues[0]?.message}`)
  }
  const { control: enabled, controlToken: token } = read.data
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
      // Let in by the token: what it holds (its connection, its body) is the token's.
      request.chargeTo?.(controlSource)
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

/**
 * A control row's answer to `request`: its input read from the path, then the query or the body
 * (as the row carries it), its core function run, its result written as the row says.
 */
async function answerRow(
  core: MockCore,
  row: AnyControlRow,
  request: WireRequest,
  params: Record<string, string>,
): Promise<WireResponse> {
  const input = inputOf(row, request, params)
  if (row.serve) return row.serve(core, input as never)
  // The curl lines of `organisations.list` are pasted into a shell: only a plain host goes in.
  const origin = `http://${request.headers.get('host') ?? ''}`
  const result = await row.run(core, input as never, origin)
  const { status, body } = row.toWire
    ? await row.toWire(result as never, core, input as never)
    : { status: row.status, body: result }
  return status === 204 ? noContent : jsonResponse(status, body)
}

/** The input of a call of `row`: its path parameters, with its query or its body. */
function inputOf(
  row: AnyControlRow,
  request: WireRequest,
  params: Record<string, string>,
): unknown {
  const { carry } = row
  if (carry === 'none') return params
  if (carry === 'query') {
    const search = new URL(request.target, 'http://control.invalid').searchParams
    return parseQuery(row, { ...Object.fromEntries(search), ...params })
  }
  const body = readJsonObject(request, row.emptyBody ? {} : undefined)
  if (typeof carry === 'object') {
    if (!body) return refusal(`The body must be a JSON object: ${carry.bodyOf}.`)
    return { ...params, [carry.bodyOf]: body }
  }
  // The body's fields join the path's parameters, which the core function cannot tell apart: a
  // field the body may not hold (one named as a parameter among them) is refused here.
  const own = fieldsOf(row.input).filter((name) => !(name in params))
  const stray =
    paramsOf(row.path).length > 0 && Object.keys(body ?? {}).some((n) => !own.includes(n))
  if (!body || stray) return refusal(`The body must be a JSON object: ${hintOf(row.input, own)}.`)
  return { ...body, ...params }
}

/** The field names of an object schema, in order; none for another schema. */
function fieldsOf(schema: z.ZodType): string[] {
  return 'shape' in schema && typeof schema.shape === 'object' && schema.shape !== null
    ? Object.keys(schema.shape)
    : []
}

/** `{"operation","status","count"?}`: the fields a body takes, the optional ones marked. */
function hintOf(schema: z.ZodType, fields: string[]): string {
  if (fields.length === 0) return '{…}'
  const shape = (schema as unknown as { shape: Record<string, z.ZodType> }).shape
  const names = fields.map(
    (name) => `"${name}"${shape[name]?.safeParse(undefined).success ? '?' : ''}`,
  )
  return `{${names.join(',')}}`
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

function refusal(message: string): never {
  throw new InvalidInput(message)
}
