import * as z from 'zod'

/** @example sexSchema.parse('female') */
export const sexSchema = z.enum(['male', 'female'])
export type Sex = z.infer<typeof sexSchema>

/** @example ageBracketSchema.parse('25-34') */
export const ageBracketSchema = z.enum(['18-24', '25-34', '35-44', '45-54', '55-64', '65+'])
export type AgeBracket = z.infer<typeof ageBracketSchema>

/**
 * The profile fields that identify's `data` sets, each with the type of its value: the one place
 * a profile field is declared. The input (`userProfileInputSchema`), the stored user
 * (`userRecordSchema`), the response (`userProfileSchema`) and identify's empty profile are views
 * of it (see docs/decisions/adding-a-profile-field.md).
 */
export const profileFieldsSchema = z.strictObject({
  firstName: z.string(),
  lastName: z.string(),
  country: z.string(),
  region: z.string(),
  sex: sexSchema,
  ageBracket: ageBracketSchema,
})

export type ProfileFields = z.output<typeof profileFieldsSchema>

export type ProfileField = keyof ProfileFields

export const profileFieldNames: readonly ProfileField[] = profileFieldsSchema.keyof().options

/**
 * The profile fields of `fields`, each one it does not set `null`: a user's profile as it is stored.
 *
 * @example profileOrNull({ firstName: 'Ada' }) // { firstName: 'Ada', lastName: null, … }
 */
export function profileOrNull(fields: Partial<ProfileFields>): {
  [F in ProfileField]: ProfileFields[F] | null
} {
  const profile: Partial<Record<ProfileField, unknown>> = {}
  for (const field of profileFieldNames) profile[field] = fields[field] ?? null
  return profile as { [F in ProfileField]: ProfileFields[F] | null }
}
