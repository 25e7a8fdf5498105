import type { z } from 'zod'

/** Whether a JSON value certainly passes a schema unchanged; `false` means "ask the schema". */
type Accepts = (value: unknown) => boolean

/** A zod check, as far as {@link acceptsOf} reads one. */
interface CheckDef {
  check: string
  minimum?: number
  maximum?: number
  fn?: (value: unknown) => unknown
  when?: unknown
}

/** A zod schema's definition, as far as {@link acceptsOf} reads one. */
interface SchemaDef {
  type: string
  checks?: { _zod: { def: CheckDef } }[]
  shape?: Record<string, z.core.$ZodType>
  catchall?: z.core.$ZodType
  innerType?: z.core.$ZodType
  element?: z.core.$ZodType
  entries?: Record<string, unknown>
}

const defOf = (schema: z.core.$ZodType) => schema._zod.def as unknown as SchemaDef

/** The keys of each kind of definition the check covers. */
const knownKeys: Record<string, readonly string[]> = {
  object: ['type', 'shape', 'catchall', 'checks'],
  optional: ['type', 'innerType'],
  string: ['type', 'checks'],
  enum: ['type', 'entries'],
  array: ['type', 'element', 'checks'],
}

/**
 * `schema` with a `safeParse` that first asks a check derived from the schema itself, once: a
 * value that check accepts is given back as it is (no copy, no issue list), any other goes to
 * zod, which alone decides a refusal. The check covers closed objects, optional fields, strings
 * with length bounds and refinements, enums and arrays with length bounds: for a schema with
 * anything else, `schema` itself is returned. The schema stays the one source of the rules.
 *
 * @example
 * const body = withFastAccept(identifyUserRequestSchema)
 * body.safeParse({ id: 'u-1', orgId: 'org-1' }) // { success: true, data: <the same object> }
 */
export function withFastAccept<S extends z.ZodType>(schema: S): S {
  const accepts = acceptsOf(schema)
  if (accepts === undefined) return schema
  const safeParse = (value: unknown) =>
    accepts(value) ? { success: true as const, data: value } : schema.safeParse(value)
  return Object.create(schema, { safeParse: { value: safeParse } }) as S
}

/** The check of `schema`; `undefined` when it has a part the check does not cover. */
function acceptsOf(schema: z.core.$ZodType): Accepts | undefined {
  const def = defOf(schema)
  // Only the parts named here: a key of the definition it does not know (a string's format, a
  // coercion, a default…) leaves the whole schema to zod.
  const known = knownKeys[def.type]
  if (!known || Object.keys(def).some((key) => !known.includes(key))) return undefined
  const checks = def.checks ?? []
  switch (def.type) {
    case 'object':
      return objectAccepts(def)
    case 'string': {
      const bounds = boundsOf(checks, ['custom'])
      if (!bounds) return undefined
      const refinements = checks.flatMap(({ _zod }) =>
        _zod.def.check === 'custom' && _zod.def.fn ? [_zod.def.fn] : [],
      )
      return (value) =>
        typeof value === 'string' &&
        value.length >= bounds.min &&
        value.length <= bounds.max &&
        refinements.every((fn) => passes(fn, value))
    }
    case 'enum': {
      if (checks.length > 0 || !def.entries) return undefined
      const values = new Set(Object.values(def.entries))
      return (value) => values.has(value)
    }
    case 'array': {
      const bounds = boundsOf(checks, [])
      const element = def.element && acceptsOf(def.element)
      if (!bounds || !element) return undefined
      return (value) =>
        Array.isArray(value) &&
        value.length >= bounds.min &&
        value.length <= bounds.max &&
        value.every(element)
    }
    default:
      return undefined
  }
}

/** A closed object's check: no key but its fields', each present one accepted, none missing. */
function objectAccepts(def: SchemaDef): Accepts | undefined {
  if ((def.checks ?? []).length > 0 || !def.shape) return undefined
  if (!def.catchall || defOf(def.catchall).type !== 'never') return undefined
  const fields = new Map<string, { accepts: Accepts; optional: boolean }>()
  for (const [name, field] of Object.entries(def.shape)) {
    const fieldDef = defOf(field)
    const optional = fieldDef.type === 'optional'
    const inner = optional ? fieldDef.innerType : field
    const accepts = inner && acceptsOf(inner)
    if (!accepts) return undefined
    fields.set(name, { accepts, optional })
  }
  const required = [...fields].filter(([, { optional }]) => !optional).map(([name]) => name)
  return (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
    if (Object.getPrototypeOf(value) !== Object.prototype) return false
    for (const name of required) if (!Object.hasOwn(value, name)) return false
    for (const name in value) {
      const field = fields.get(name)
      if (!field || !Object.hasOwn(value, name)) return false
      if (!field.accepts((value as Record<string, unknown>)[name])) return false
    }
    return true
  }
}

/** The length bounds of `checks`; `undefined` when one is of a kind not in `others` nor a bound. */
function boundsOf(checks: SchemaDef['checks'] & object, others: readonly string[]) {
  let min = 0
  let max = Number.POSITIVE_INFINITY
  for (const { _zod } of checks) {
    const { check, minimum, maximum, when } = _zod.def
    // A length bound runs only on a value with a length: every string and array the check takes.
    if (check === 'min_length' && minimum !== undefined) min = Math.max(min, minimum)
    else if (check === 'max_length' && maximum !== undefined) max = Math.min(max, maximum)
    else if (!others.includes(check) || when !== undefined) return undefined
  }
  return { min, max }
}

/** Whether a refinement passes `value` for certain: it said `true` (a throw or anything else asks zod). */
function passes(fn: (value: unknown) => unknown, value: unknown): boolean {
  try {
    return fn(value) === true
  } catch {
    return false
  }
}
