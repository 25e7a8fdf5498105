import * as z from 'zod'

// Views of a zod object's fields, for schemas that share fields but not their optionality:
// `z.strictObject({ ...nullableFields(profileFieldsSchema.shape), … })`.

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
