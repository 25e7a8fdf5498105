import * as z from 'zod'
import {
  deleteUserResponseSchema,
  errorResponseSchema,
  identifyUserRequestSchema,
  identifyUserResponseSchema,
  userProfileInputSchema,
  userProfileSchema,
} from '../api/api-schemas.ts'
import { webhookEventTypes } from '../webhooks/events.ts'
import { webhookEnvelopeSchema } from '../webhooks/webhook-schemas.ts'

/** The schemas the OpenAPI document names, in its order, with what it says of each. */
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
  ...eventComponents(),
} as const satisfies Record<string, readonly [z.ZodType, string]>

/** The delivered body of each named event type, by its component name. */
function eventComponents() {
  type Component = (typeof webhookEventTypes)[keyof typeof webhookEventTypes]['component']
  return Object.fromEntries(
    Object.values(webhookEventTypes).map((row): [string, readonly [z.ZodType, string]] => [
      row.component,
      [row.schema, row.description],
    ]),
  ) as Record<Component, readonly [z.ZodType, string]>
}

/** A reference to a named schema. */
export const ref = (name: keyof typeof components) => ({ $ref: `#/components/schemas/${name}` })

/**
 * A schema as the document refers to it: by its name among the components, or written out in
 * place when it has none.
 */
export function schemaRef(schema: z.ZodType): Record<string, unknown> {
  const named = Object.entries(components).find(([, [component]]) => component === schema)
  if (named) return ref(named[0] as keyof typeof components)
  const { $schema: _, ...inline } = z.toJSONSchema(schema)
  return inline
}

/** The document's `components.schemas`, generated from the zod schemas. */
export function componentSchemas(): Record<string, Record<string, unknown>> {
  const registry = z.registry<{ id: string; description: string }>()
  for (const [id, [schema, description]] of Object.entries(components)) {
    registry.add(schema, { id, description })
  }
  const { schemas } = z.toJSONSchema(registry, { uri: (id) => `#/components/schemas/${id}` })
  return Object.fromEntries(
    Object.entries(schemas).map(([id, { $schema: _, $id: __, ...schema }]) => [id, schema]),
  )
}
