import { z } from 'zod'
import {
  ApiError,
  type ApiErrorCode,
  apiErrors,
  toErrorResponse,
  type WireResponse,
} from './errors.ts'
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

const internal = errorResponse('internal', 'Server failure.')
const forbidden = errorResponse(
  'forbidden',
  'Access refused: the API key belongs to another organisation.',
)

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
    paths: {
      '/api/v1/users/identify': {
        post: {
          operationId: 'identifyUser',
          summary: 'Identify a user',
          description:
            'Creates the user on the first call for its id, otherwise applies the profile data sent; always returns a new sign-in token, for immediate use.',
          requestBody: {
            required: true,
            content: { 'application/json': { schema: ref('IdentifyUserRequest') } },
          },
          responses: {
            '200': {
              description: "The user's profile and a new sign-in token.",
              content: { 'application/json': { schema: ref('IdentifyUserResponse') } },
            },
            '400': errorResponse('invalidRequest', 'The body does not match IdentifyUserRequest.'),
            '401': unauthorized,
            '403': forbidden,
            '405': methodNotAllowed,
            '500': internal,
          },
        },
      },
      '/api/v1/users/{orgId}/{id}': {
        delete: {
          operationId: 'deleteUser',
          summary: 'Delete a user',
          description:
            'Permanently removes the user: account, learning progress, certificates and profile data.',
          parameters: [
            {
              name: 'orgId',
              in: 'path',
              required: true,
              description: "The caller's organisation identifier.",
              schema: { type: 'string', minLength: 1 },
            },
            {
              name: 'id',
              in: 'path',
              required: true,
              description: "The user identifier from the caller's system, percent-encoded.",
              schema: { type: 'string', minLength: 1 },
            },
          ],
          responses: {
            '200': {
              description: 'The user was deleted.',
              content: { 'application/json': { schema: ref('DeleteUserResponse') } },
            },
            '401': unauthorized,
            '403': forbidden,
            '404': errorResponse('userNotFound', 'No user exists for the given orgId and id.'),
            '405': methodNotAllowed,
            '500': internal,
          },
        },
      },
    },
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

/** The path the standalone server serves the document at. */
export const openApiPath = '/openapi.json'

let documentText: string | undefined

/** `GET /openapi.json`: the document, built once on first request. */
export function answerOpenApi(method: string): WireResponse {
  if (method !== 'GET' && method !== 'HEAD') {
    return toErrorResponse(new ApiError('methodNotAllowed', { allow: allowHeader(['GET']) }))
  }
  documentText ??= JSON.stringify(createOpenApiDocument())
  return { status: 200, headers: { 'content-type': 'application/json' }, body: documentText }
}
