import { z } from 'zod'

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

/** The profile fields of `record`, in the order they are declared. */
export function profileOf<R extends { [F in ProfileField]: unknown }>(
  record: R,
): Pick<R, ProfileField> {
  return Object.fromEntries(profileFieldNames.map((field) => [field, record[field]])) as Pick<
    R,
    ProfileField
  >
}

/** Every field of `shape`, nullable: a value the record may not have. */
export function nullableFields<S extends z.ZodRawShape>(
  shape: S,
): { [K in keyof S]: z.ZodNullable<S[K]> } {
  return mapFields(shape, (field) => z.nullable(field)) as { [K in keyof S]: z.ZodNullable<S[K]> }
}

/** Every field of `shape`, nullable and optional: as the API describes its answers. */
export function optionalNullableFields<S extends z.ZodRawShape>(
  shape: S,
): { [K in keyof S]: z.ZodOptional<z.ZodNullable<S[K]>> } {
  return mapFields(shape, (field) => z.optional(z.nullable(field))) as {
    [K in keyof S]: z.ZodOptional<z.ZodNullable<S[K]>>
  }
}

/** Every text field of `shape` at most `maxLength` characters; the others as they are. */
export function textFieldsAtMost<S extends z.ZodRawShape>(shape: S, maxLength: number): S {
  return mapFields(shape, (field) =>
    field instanceof z.ZodString ? field.max(maxLength) : field,
  ) as S
}

/** `shape` with `map` applied to each field; the caller states the type of the result. */
function mapFields<T>(shape: z.ZodRawShape, map: (field: z.core.$ZodType) => T) {
  return Object.fromEntries(Object.entries(shape).map(([name, field]) => [name, map(field)]))
}
