import { z } from 'zod'
import type { PathParams } from './api-route.ts'
import {
  ApiError,
  type ApiErrorCode,
  apiErrors,
  toErrorResponse,
  type WireResponse,
} from './errors.ts'
import { type ApiRoute, apiRoutes } from './routes.ts'
import {
  deleteUserResponseSchema,
  errorResponseSchema,
  identifyUserRequestSchema,
  identifyUserResponseSchema,
  userProfileInputSchema,
  userProfileSchema,
} from './schemas.ts'
import {
  notificationsSentEventSchema,
  userCourseStartedEventSchema,
  webhookEnvelopeSchema,
} from './webhooks/schemas.ts'
import { allowHeader } from './wire.ts'

const components = {
  UserProfileInput: [
    userProfileInputSchema,
    'Profile data to create or update. Every field is optional.',
  ],
  IdentifyUserRequest: [identifyUserRequestSchema, 'The request body of identify.'],
  UserProfile: [userProfileSchema, "The user's stored profile."],
  IdentifyUserResponse: [identifyUserResponseSchema, 'The 200 body of identify.'],
  DeleteUserResponse: [deleteUserResponseSchema, 'The 200 body of delete.'],
  ErrorResponse: [errorResponseSchema, 'Every error body: `code` equals the HTTP status.'],
  WebhookEnvelope: [
    webhookEnvelopeSchema,
    'The body of every webhook delivery. `timestamp` is when the event happened (milliseconds and `Z`), not when it was delivered.',
  ],
  NotificationsSentEvent: [
    notificationsSentEventSchema,
    'Reminders and admin notifications, one item per user, for the receiver to forward as pushes.',
  ],
  UserCourseStartedEvent: [userCourseStartedEventSchema, 'A user started a course.'],
} as const satisfies Record<string, readonly [z.ZodType, string]>

const ref = (name: keyof typeof components) => ({ $ref: `#/components/schemas/${name}` })

/**
 * A schema as the document refers to it: by its name among the components, or written out in
 * place when it has none.
 */
function schemaRef(schema: z.ZodType) {
  const named = Object.entries(components).find(([, [component]]) => component === schema)
  if (named) return ref(named[0] as keyof typeof components)
  const { $schema: _, ...inline } = z.toJSONSchema(schema)
  return inline
}

function componentSchemas() {
  const registry = z.registry<{ id: string; description: string }>()
  for (const [id, [schema, description]] of Object.entries(components)) {
    registry.add(schema, { id, description })
  }
  const { schemas } = z.toJSONSchema(registry, { uri: (id) => `#/components/schemas/${id}` })
  return Object.fromEntries(
    Object.entries(schemas).map(([id, { $schema: _, $id: __, ...schema }]) => [id, schema]),
  )
}

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
const svixHeaders = [
  ['svix-id', 'The message id (`msg_…`), the same on every retry of one message.'],
  ['svix-timestamp', 'Unix time in seconds of this attempt.'],
  [
    'svix-signature',
    'Space-separated `v1,<base64>` entries: HMAC-SHA256 over `<svix-id>.<svix-timestamp>.<raw body>`, keyed with the base64-decoded part of the endpoint secret after `whsec_`.',
  ],
].map(([name, description]) => ({
  name,
  in: 'header',
  required: true,
  description,
  schema: { type: 'string' },
}))

/** A webhook the platform posts to the customer's endpoint, signed as Svix signs. */
function webhook(name: 'NotificationsSentEvent' | 'UserCourseStartedEvent', summary: string) {
  return {
    post: {
      operationId: name.replace(/^./, (c) => c.toLowerCase()),
      summary,
      description:
        'Posted to every endpoint subscribed to the type, signed with the endpoint secret. Any other answer than a 2xx, a timeout (15 s) or a network error is retried on the schedule (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h after the attempt before) with the same svix-id.',
      security: [],
      parameters: svixHeaders,
      requestBody: {
        required: true,
        content: {
          'application/json': { schema: { allOf: [ref('WebhookEnvelope'), ref(name)] } },
        },
      },
      responses: {
        '200': { description: 'Received: any 2xx ends the retries.' },
        '400': { description: 'Refused (a bad signature, say): the delivery is retried.' },
      },
    },
  }
}

/** What the document says of each documented error of a route. */
const errorDescriptions = {
  invalidRequest: 'The body does not match IdentifyUserRequest.',
  forbidden: 'Access refused: the API key belongs to another organisation.',
  userNotFound: 'No user exists for the given orgId and id.',
  internal: 'Server failure.',
} as const satisfies { [C in ApiRoute['errors'][number]]: string }

/** What the document says of each path parameter of a route. */
const parameterDescriptions = {
  orgId: "The caller's organisation identifier.",
  id: "The user identifier from the caller's system, percent-encoded.",
} as const satisfies { [N in keyof PathParams<ApiRoute['path']>]: string }

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
function pathsOf(routes: readonly ApiRoute[]) {
  const paths: Record<string, Record<string, ReturnType<typeof operationOf>>> = {}
  for (const route of routes) {
    const template = route.path.replace(/:(\w+)/g, '{$1}')
    paths[template] = { ...paths[template], [route.method.toLowerCase()]: operationOf(route) }
  }
  return paths
}

/**
 * The OpenAPI 3.1 document of the API, generated from the same zod schemas the mock validates
 * with. It covers both operations, the bearer scheme, every documented status and the statuses
 * this mock adds (401, 405), and the two named webhooks with their envelope.
 *
 * @example
 * import { createOpenApiDocument } from 'identify-api-mock'
 * const document = createOpenApiDocument()
 * document.paths['/api/v1/users/identify'].post
 */
export function createOpenApiDocument() {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Identify and Delete User API',
      version: '1.0.0',
      description:
        'Identify (create or update) a user of an organisation and get a short-lived sign-in token for the web view; permanently delete a user. Generated by identify-api-mock from the schemas its mock validates with.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [
      {
        url: '{base_url}',
        description: 'The API, or a local identify-api-mock server.',
        variables: { base_url: { default: 'http://127.0.0.1:4010' } },
      },
    ],
    security: [{ bearerAuth: [] }],
    paths: pathsOf(apiRoutes),
    webhooks: {
      'notifications.sent': webhook('NotificationsSentEvent', 'Notifications sent'),
      'user.course.started': webhook('UserCourseStartedEvent', 'User started a course'),
    },
    components: {
      schemas: componentSchemas(),
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description:
            'Authorization: Bearer <API key>. Every API key belongs to one organisation.',
        },
      },
    },
  }
}

export type OpenApiDocument = ReturnType<typeof createOpenApiDocument>

let documentText: string | undefined

/** `GET /openapi.json`: the document, built once on first request. */
export function answerOpenApi(method: string): WireResponse {
  if (method !== 'GET' && method !== 'HEAD') {
    return toErrorResponse(new ApiError('methodNotAllowed', { allow: allowHeader(['GET']) }))
  }
  documentText ??= JSON.stringify(createOpenApiDocument())
  return { status: 200, headers: { 'content-type': 'application/json' }, body: documentText }
}
