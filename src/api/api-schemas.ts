import * as z from 'zod'
import { profileFieldsSchema } from './profile-fields.ts'
import { optionalNullableFields, textFieldsAtMost } from './shape-views.ts'

// The schemas of the Identify and Delete User API, as its description states them. They are the
// single source of the public types, of the mock's input validation and of the OpenAPI document.
// Every object is closed (`additionalProperties: false`).

export { type AgeBracket, ageBracketSchema, type Sex, sexSchema } from './profile-fields.ts'

/** @example registrationStatusSchema.parse('archived') */
export const registrationStatusSchema = z.enum(['registered', 'unregistered', 'archived'])
export type RegistrationStatus = z.infer<typeof registrationStatusSchema>

/** ISO 8601 timestamp with an offset, e.g. `2025-08-14T15:12:34+00:00`. */
export const dateTimeSchema = z.iso.datetime({ offset: true })

/** A calendar date, `YYYY-MM-DD`. */
export const dateSchema = z.iso.date()

/**
 * The longest `id`, `orgId` and text field of `data` the mock accepts, in JavaScript characters
 * (UTF-16 code units), and the bounds of `userGroups`: limits of the mock, so that no request can
 * fill its memory, on the request side only (the response schemas accept whatever the real API
 * answers).
 */
const requestLimits = {
  idLength: 1024,
  textLength: 1024,
  userGroups: 1000,
  groupIdLength: 256,
} as const

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/**
 * An `id` or `orgId`: non-empty, at most {@link requestLimits}`.idLength` characters, and
 * well-formed Unicode (no lone surrogate), so that `DELETE` can address it in its path.
 */
const idSchema = z
  .string()
  .min(1)
  .max(requestLimits.idLength)
  .refine((value) => !loneSurrogate.test(value), 'must be well-formed Unicode (no lone surrogate)')

/**
 * The `data` object of an identify request: profile data to create or update. Every field is
 * optional; none is nullable. Text fields hold at most 1,024 characters; `userGroups` at most
 * 1,000 group ids of 1 to 256 characters.
 *
 * @example
 * userProfileInputSchema.parse({ firstName: 'Ada', ageBracket: '35-44', userGroups: ['grp-1'] })
 */
export const userProfileInputSchema = z
  .strictObject({
    ...textFieldsAtMost(profileFieldsSchema.shape, requestLimits.textLength),
    userGroups: z
      .array(z.string().min(1).max(requestLimits.groupIdLength))
      .max(requestLimits.userGroups),
  })
  .partial()
export type UserProfileInput = z.infer<typeof userProfileInputSchema>

/**
 * The body of `POST /api/v1/users/identify`. `id` and `orgId` must be non-empty, at most 1,024
 * characters, and well-formed Unicode.
 *
 * @example
 * identifyUserRequestSchema.parse({ id: 'user-42', orgId: 'org-1', data: { firstName: 'Ada' } })
 */
export const identifyUserRequestSchema = z.strictObject({
  id: idSchema,
  orgId: idSchema,
  data: userProfileInputSchema.optional(),
})
export type IdentifyUserRequest = z.infer<typeof identifyUserRequestSchema>

/**
 * The user's stored profile, as identify returns it. As in the API description, every field but
 * `userId`, `registrationStatus` and `userGroups` is optional and nullable, so the schema also
 * accepts the real API's answers; in its default `full` answer shape the mock sends every field.
 *
 * @example
 * userProfileSchema.parse({ userId: 'u1', registrationStatus: 'registered', userGroups: [] })
 */
export const userProfileSchema = z.strictObject({
  userId: z.string(),
  registrationStatus: registrationStatusSchema,
  ...optionalNullableFields({
    lastActive: dateTimeSchema,
    registeredAt: dateTimeSchema,
    ...profileFieldsSchema.shape,
    // The API describes `ageBracket` in its answers as a plain string.
    ageBracket: z.string(),
  }),
  userGroups: z.array(z.string()),
  ...optionalNullableFields({
    learningPathId: z.string(),
    learningPathName: z.string(),
    learningPathStartDate: dateSchema,
    learningPathDueDate: dateSchema,
    learningPathCompletedAt: dateTimeSchema,
  }),
})
export type UserProfile = z.infer<typeof userProfileSchema>

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
export type IdentifyUserResponse = z.infer<typeof identifyUserResponseSchema>

/**
 * The 200 body of `DELETE /api/v1/users/{orgId}/{id}`.
 *
 * @example deleteUserResponseSchema.parse({ id: 'user-42', deleted: true })
 */
export const deleteUserResponseSchema = z.strictObject({
  id: z.string(),
  deleted: z.boolean(),
})
export type DeleteUserResponse = z.infer<typeof deleteUserResponseSchema>

/**
 * Every error body: `code` equals the HTTP status.
 *
 * @example errorResponseSchema.parse({ code: 404, message: 'User not found' })
 */
export const errorResponseSchema = z.strictObject({
  code: z.int(),
  message: z.string(),
})
export type ErrorResponse = z.infer<typeof errorResponseSchema>

export * from '../webhooks/webhook-schemas.ts'
