import { type ApiErrorCode, apiErrors } from '../base/errors.ts'
import type { PathParams } from './api-route.ts'
import { ref, schemaRef } from './openapi-components.ts'
import type { ApiRoute } from './routes.ts'

/** A response with an `ErrorResponse` body whose example is the exact message of `code`. */
function errorResponse(code: ApiErrorCode, description: string, headers?: Record<string, unknown>) {
  const { status, message } = apiErrors[code]
  return {
    description,
    ...(headers && { headers }),
    content: {
      'application/json': { schema: ref('ErrorResponse'), example: { code: status, message } },
    },
  }
}

const unauthorized = errorResponse(
  'unauthorized',
  'Missing Authorization header, a scheme other than Bearer, or an empty or unknown API key (a status of this mock: the API description does not name one).',
  { 'WWW-Authenticate': { schema: { type: 'string', const: 'Bearer' } } },
)
const methodNotAllowed = errorResponse(
  'methodNotAllowed',
  'The path exists, but not with the method used (a status of this mock). The Allow header lists the method it has.',
  { Allow: { schema: { type: 'string' } } },
)

/** What the document says of each documented error of a route. */
const errorDescriptions = {
  invalidRequest: 'The body does not match IdentifyUserRequest.',
  forbidden: 'Access refused: the API key belongs to another organisation.',
  userNotFound: 'No user exists for the given orgId and id.',
  internal: 'Server failure.',
} as const satisfies { [C in ApiRoute['errors'][number]]: string }

/** The name of every path parameter of every route. */
type ParameterName = ApiRoute['path'] extends infer P
  ? P extends string
    ? keyof PathParams<P>
    : never
  : never

/** What the document says of each path parameter of a route. */
const parameterDescriptions = {
  orgId: "The caller's organisation identifier.",
  id: "The user identifier from the caller's system, percent-encoded.",
} as const satisfies Record<ParameterName, string>

/** The operation object of a route: its parameters, body and every answer it may give. */
function operationOf(route: ApiRoute) {
  const names = [...route.path.matchAll(/:(\w+)/g)].map(
    (match) => match[1] as keyof typeof parameterDescriptions,
  )
  const documentedErrors: ReadonlyArray<keyof typeof errorDescriptions> = route.errors
  const body = 'body' in route ? route.body : undefined
  const { ok, ...doc } = route.doc
  return {
    ...doc,
    ...(names.length > 0 && {
      parameters: names.map((name) => ({
        name,
        in: 'path',
        required: true,
        description: parameterDescriptions[name],
        schema: { type: 'string', minLength: 1 },
      })),
    }),
    ...(body && {
      requestBody: {
        required: true,
        content: { 'application/json': { schema: schemaRef(body) } },
      },
    }),
    responses: {
      '200': {
        description: ok,
        content: { 'application/json': { schema: schemaRef(route.response) } },
      },
      ...Object.fromEntries(
        documentedErrors.map((code) => [
          apiErrors[code].status,
          errorResponse(code, errorDescriptions[code]),
        ]),
      ),
      '401': unauthorized,
      '405': methodNotAllowed,
    },
  }
}

/** The document's `paths`, one operation per route, in OpenAPI's `{name}` templates. */
export function pathsOf(routes: readonly ApiRoute[]) {
  const paths: Record<string, Record<string, ReturnType<typeof operationOf>>> = {}
  for (const route of routes) {
    const template = route.path.replace(/:(\w+)/g, '{$1}')
    paths[template] = { ...paths[template], [route.method.toLowerCase()]: operationOf(route) }
  }
  return paths
}
