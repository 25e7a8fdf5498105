import { z } from 'zod'

/**
 * The schemas of the Identify and Delete User API, as its description states them. They are the
 * single source of the public types, of the mock's input validation and of the OpenAPI document.
 * Every object is closed (`additionalProperties: false`).
 *
 * @example
 * import { identifyUserResponseSchema } from 'identify-api-mock'
 * const body = identifyUserResponseSchema.parse(await response.json())
 */
export const sexSchema = z.enum(['male', 'female'])

/** @example ageBracketSchema.parse('25-34') */
export const ageBracketSchema = z.enum(['18-24', '25-34', '35-44', '45-54', '55-64', '65+'])

/** @example registrationStatusSchema.parse('archived') */
export const registrationStatusSchema = z.enum(['registered', 'unregistered', 'archived'])

/** ISO 8601 timestamp with an offset, e.g. `2025-08-14T15:12:34+00:00`. */
export const dateTimeSchema = z.iso.datetime({ offset: true })

/** A calendar date, `YYYY-MM-DD`. */
export const dateSchema = z.iso.date()

/**
 * The `data` object of an identify request: profile data to create or update. Every field is
 * optional; none is nullable.
 *
 * @example
 * userProfileInputSchema.parse({ firstName: 'Ada', ageBracket: '35-44', userGroups: ['grp-1'] })
 */
export const userProfileInputSchema = z.strictObject({
  firstName: z.string().optional(),
  lastName: z.string().optional(),
  country: z.string().optional(),
  region: z.string().optional(),
  sex: sexSchema.optional(),
  ageBracket: ageBracketSchema.optional(),
  userGroups: z.array(z.string()).optional(),
})

/**
 * The body of `POST /api/v1/users/identify`. `id` and `orgId` must be non-empty.
 *
 * @example
 * identifyUserRequestSchema.parse({ id: 'user-42', orgId: 'org-1', data: { firstName: 'Ada' } })
 */
export const identifyUserRequestSchema = z.strictObject({
  id: z.string().min(1),
  orgId: z.string().min(1),
  data: userProfileInputSchema.optional(),
})

/**
 * The user's stored profile, as identify returns it. As in the API description, every field but
 * `userId`, `registrationStatus` and `userGroups` is optional and nullable, so the schema also
 * accepts the real API's answers; the mock always sends every field.
 *
 * @example
 * userProfileSchema.parse({ userId: 'u1', registrationStatus: 'registered', userGroups: [] })
 */
export const userProfileSchema = z.strictObject({
  userId: z.string(),
  registrationStatus: registrationStatusSchema,
  lastActive: dateTimeSchema.nullable().optional(),
  registeredAt: dateTimeSchema.nullable().optional(),
  firstName: z.string().nullable().optional(),
  lastName: z.string().nullable().optional(),
  country: z.string().nullable().optional(),
  region: z.string().nullable().optional(),
  sex: sexSchema.nullable().optional(),
  ageBracket: z.string().nullable().optional(),
  userGroups: z.array(z.string()),
  learningPathId: z.string().nullable().optional(),
  learningPathName: z.string().nullable().optional(),
  learningPathStartDate: dateSchema.nullable().optional(),
  learningPathDueDate: dateSchema.nullable().optional(),
  learningPathCompletedAt: dateTimeSchema.nullable().optional(),
})

/**
 * The 200 body of identify.
 *
 * @example
 * const { token } = identifyUserResponseSchema.parse(await response.json())
 */
export const identifyUserResponseSchema = z.strictObject({
  id: z.string(),
  data: userProfileSchema,
  token: z.string(),
})

/**
 * The 200 body of `DELETE /api/v1/users/{orgId}/{id}`.
 *
 * @example deleteUserResponseSchema.parse({ id: 'user-42', deleted: true })
 */
export const deleteUserResponseSchema = z.strictObject({
  id: z.string(),
  deleted: z.boolean(),
})

/**
 * Every error body: `code` equals the HTTP status.
 *
 * @example errorResponseSchema.parse({ code: 404, message: 'User not found' })
 */
export const errorResponseSchema = z.strictObject({
  code: z.int(),
  message: z.string(),
})

export type Sex = z.infer<typeof sexSchema>
export type AgeBracket = z.infer<typeof ageBracketSchema>
export type RegistrationStatus = z.infer<typeof registrationStatusSchema>
export type UserProfileInput = z.infer<typeof userProfileInputSchema>
export type IdentifyUserRequest = z.infer<typeof identifyUserRequestSchema>
export type UserProfile = z.infer<typeof userProfileSchema>
export type IdentifyUserResponse = z.infer<typeof identifyUserResponseSchema>
export type DeleteUserResponse = z.infer<typeof deleteUserResponseSchema>
export type ErrorResponse = z.infer<typeof errorResponseSchema>

export * from './webhooks/schemas.ts'
