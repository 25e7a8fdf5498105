import type * as z from 'zod'

/** What a take gives for a value it cannot vouch for: "ask the schema". */
const unsure: unique symbol = Symbol('unsure')

/**
 * A check derived from a schema: the value as the schema's parse would give it, or
 * {@link unsure}. Without `copy` an accepted value is given back as it is; with `copy` as a new
 * object or array, each object's keys in the schema's order: what zod's parse gives.
 */
type Take = (value: unknown) => unknown

/** A zod check, as far as {@link takeOf} reads one. */
interface CheckDef {
  check: string
  minimum?: number
  maximum?: number
  value?: unknown
  inclusive?: boolean
  format?: string
  pattern?: RegExp
  fn?: (value: unknown) => unknown
  when?: unknown
}

/** A zod schema's definition, as far as {@link takeOf} reads one. */
interface SchemaDef extends Partial<CheckDef> {
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
  nullable: ['type', 'innerType'],
  // A string format's definition is its own check too: `z.iso.datetime()` runs its pattern.
  string: ['type', 'checks', 'check', 'format', 'pattern', 'offset', 'local', 'precision'],
  // `z.int()` is a number with its own format check.
  number: ['type', 'checks', 'check', 'format', 'abort'],
  // A custom message (`error`) changes only what zod says of a value it refuses.
  enum: ['type', 'entries', 'error'],
  array: ['type', 'element', 'checks'],
  boolean: ['type'],
}

/**
 * The string formats whose whole check is their pattern (zod's `$ZodCheckStringFormat`): a date,
 * a date-time (its offset, local and precision options are in the pattern), a regex. Any other
 * format (an email, a URL…) may check more than a pattern, and is left to zod.
 */
const patternFormats: readonly string[] = ['date', 'datetime', 'regex']

/**
 * `schema` with a `safeParse` that first asks a check derived from the schema itself, once: a
 * value that check accepts is given back as it is (no copy, no issue list), any other goes to
 * zod, which alone decides a refusal. The check covers closed objects, optional and nullable
 * fields, strings with length bounds, refinements, regexes and date or date-time formats, numbers
 * and safe integers with bounds, booleans, enums and arrays with length bounds: for a schema with anything
 * else, `schema` itself is returned. The schema stays the one source of the rules.
 *
 * @example
 * const body = withFastAccept(identifyUserRequestSchema)
 * body.safeParse({ id: 'u-1', orgId: 'org-1' }) // { success: true, data: <the same object> }
 */
export function withFastAccept<S extends z.ZodType>(schema: S): S {
  const take = takeOf(schema, false)
  if (take === undefined) return schema
  const safeParse = (value: unknown) =>
    take(value) !== unsure ? { success: true as const, data: value } : schema.safeParse(value)
  return Object.create(schema, { safeParse: { value: safeParse } }) as S
}

/**
 * A parse of `schema` that gives what `schema.parse` gives, cheaper: a value the check derived
 * from the schema (see {@link withFastAccept}) accepts is copied as zod would copy it (a new
 * object for each object, its keys in the schema's order, a new array for each array), in one pass
 * with the check; any other value goes to `schema.parse`, which alone decides (and throws) a
 * refusal. For a schema the check does not cover, it is `schema.parse` itself.
 *
 * @example
 * const parseUser = fastParseOf(userRecordSchema)
 * const user = parseUser(JSON.parse(line)) // a new object, or zod's ZodError
 */
export function fastParseOf<S extends z.ZodType>(schema: S): (value: unknown) => z.output<S> {
  const take = takeOf(schema, true)
  if (take === undefined) return (value) => schema.parse(value)
  return (value) => {
    const taken = take(value)
    return taken === unsure ? schema.parse(value) : (taken as z.output<S>)
  }
}

/** The check of `schema`; `undefined` when it has a part the check does not cover. */
function takeOf(schema: z.core.$ZodType, copy: boolean): Take | undefined {
  const def = defOf(schema)
  // Only the parts named here: a key of the definition it does not know (a coercion, a default, a
  // custom message…) leaves the whole schema to zod.
  const known = knownKeys[def.type]
  if (!known || Object.keys(def).some((key) => !known.includes(key))) return undefined
  const checks = def.checks ?? []
  switch (def.type) {
    case 'object':
      return objectTake(def, copy)
    case 'nullable': {
      const inner = def.innerType && takeOf(def.innerType, copy)
      return inner && ((value) => (value === null ? null : inner(value)))
    }
    case 'string':
      return stringTake(def, checks)
    case 'number':
      return numberTake(def, checks)
    case 'enum': {
      if (checks.length > 0 || !def.entries) return undefined
      const values = new Set(Object.values(def.entries))
      return (value) => (values.has(value) ? value : unsure)
    }
    case 'boolean':
      return (value) => (typeof value === 'boolean' ? value : unsure)
    case 'array': {
      const bounds = lengthBoundsOf(checks)
      const element = def.element && takeOf(def.element, copy)
      if (!bounds || !element) return undefined
      return (value) => {
        // A plain array only: zod's copy of another kind would be a plain one.
        if (!Array.isArray(value) || Object.getPrototypeOf(value) !== Array.prototype) return unsure
        if (value.length < bounds.min || value.length > bounds.max) return unsure
        // By index, not `every`: a hole is `undefined` to zod, and skipped by `every`.
        const out: unknown[] = []
        for (let i = 0; i < value.length; i++) {
          const taken = element(value[i])
          if (taken === unsure) return unsure
          if (copy) out.push(taken)
        }
        return copy ? out : value
      }
    }
    default:
      return undefined
  }
}

/**
 * A closed object's check: a plain object, no key but its fields', each present one accepted, none
 * missing. Without `copy`, in any order; with `copy`, in the schema's order (as a record the mock
 * wrote has them), so that the copy built along has zod's order: a record in another order asks zod.
 */
function objectTake(def: SchemaDef, copy: boolean): Take | undefined {
  if ((def.checks ?? []).length > 0 || !def.shape) return undefined
  if (!def.catchall || defOf(def.catchall).type !== 'never') return undefined
  const fields: Field[] = []
  for (const [name, field] of Object.entries(def.shape)) {
    const fieldDef = defOf(field)
    const optional = fieldDef.type === 'optional'
    // An optional field's definition is read here: only its inner type is a value's check.
    if (optional && Object.keys(fieldDef).some((key) => !knownKeys.optional?.includes(key)))
      return undefined
    const inner = optional ? fieldDef.innerType : field
    const take = inner && takeOf(inner, copy)
    if (!take) return undefined
    fields.push({ name, take, optional })
  }
  // The accept marks each field with a bit of a 31-bit integer: a larger object is zod's.
  if (fields.length > 30) return undefined
  return copy ? copyInOrder(fields) : acceptInAnyOrder(fields)
}

/** Whether `value` is a plain object: the only kind the checks read, any other asks zod. */
const isPlain = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype

/** A field of a closed object, as its check reads it. */
interface Field {
  name: string
  take: Take
  optional: boolean
}

// A field is present as zod sees it: `name in record` (inherited or not enumerable too), its value
// `record[name]`; an unknown key is one of `for…in` (enumerable, inherited too), as zod's strict
// check finds them.

/**
 * A plain object's check, its keys in any order: the object itself when it passes, which is when
 * zod's copy would hold the same: every field present its own, enumerable key, and no other own
 * key.
 */
function acceptInAnyOrder(fields: readonly Field[]): Take {
  // Each field's bit, so that the fields its keys did not name are found without a lookup each.
  const byName = new Map(fields.map((field, i) => [field.name, { ...field, bit: 2 ** i }]))
  const all = 2 ** fields.length - 1
  return (value) => {
    if (!isPlain(value)) return unsure
    let seen = 0
    let keys = 0
    for (const name in value) {
      const field = byName.get(name)
      if (!field || !Object.hasOwn(value, name) || field.take(value[name]) === unsure) return unsure
      seen += field.bit
      keys++
    }
    // An own key that `for…in` does not list (not enumerable, or a symbol) is one zod's copy would
    // not hold: the object itself is then not what zod gives. Counted as names and symbols apart:
    // `Reflect.ownKeys` gives the same keys at four times the cost (measured).
    if (Object.getOwnPropertyNames(value).length !== keys) return unsure
    if (Object.getOwnPropertySymbols(value).length !== 0) return unsure
    if (seen === all) return value
    // A field its keys did not name must be optional and absent to zod too (`in`).
    for (const field of byName.values()) {
      if ((seen & field.bit) !== 0) continue
      if (!field.optional || field.name in value) return unsure
    }
    return value
  }
}

/**
 * A plain object's check and copy in one pass, its keys in the schema's order: one walk of its
 * keys (an unknown key, a key out of order or a required field missing asks zod), each value read
 * once.
 */
function copyInOrder(fields: readonly Field[]): Take {
  /** Whether the fields from `next` on are optional and absent. */
  const noneFrom = (record: Record<string, unknown>, next: number, until: number) => {
    for (let i = next; i < until; i++) {
      const field = fields[i] as Field
      if (!field.optional || field.name in record) return false
    }
    return true
  }
  return (record: unknown) => {
    if (!isPlain(record)) return unsure
    const out: Record<string, unknown> = {}
    let next = 0
    for (const name in record) {
      let at = next
      while (at < fields.length && fields[at]?.name !== name) at++
      // Every field skipped on the way must be optional and absent.
      if (at === fields.length || !noneFrom(record, next, at)) return unsure
      const taken = (fields[at] as Field).take(record[name])
      if (taken === unsure) return unsure
      out[name] = taken
      next = at + 1
    }
    return noneFrom(record, next, fields.length) ? out : unsure
  }
}

/** A string's check: its length bounds, refinements and patterns (its own format's first). */
function stringTake(def: SchemaDef, checks: NonNullable<SchemaDef['checks']>): Take | undefined {
  const bounds = lengthBoundsOf(checks, ['custom', 'string_format'])
  if (!bounds) return undefined
  const patterns: RegExp[] = []
  for (const check of [def, ...checks.map(({ _zod }) => _zod.def)]) {
    if (check.check !== 'string_format') continue
    if (!patternFormats.includes(check.format ?? '') || !(check.pattern instanceof RegExp))
      return undefined
    patterns.push(check.pattern)
  }
  if (def.check !== undefined && def.check !== 'string_format') return undefined
  const refinements = checks.flatMap(({ _zod }) =>
    _zod.def.check === 'custom' && _zod.def.fn ? [_zod.def.fn] : [],
  )
  const { min, max } = bounds
  const [pattern, ...others] = patterns
  // The common kinds without a loop: a plain string, and one format (a date, a date-time).
  if (refinements.length === 0 && others.length === 0)
    return pattern === undefined
      ? (value) =>
          typeof value === 'string' && value.length >= min && value.length <= max ? value : unsure
      : (value) =>
          typeof value === 'string' &&
          value.length >= min &&
          value.length <= max &&
          matches(pattern, value)
            ? value
            : unsure
  return (value) =>
    typeof value === 'string' &&
    value.length >= min &&
    value.length <= max &&
    patterns.every((pattern) => matches(pattern, value)) &&
    refinements.every((fn) => passes(fn, value))
      ? value
      : unsure
}

/**
 * A number's check: finite, a safe integer when its format says so (`z.int()`), and within its
 * bounds. Any other number format (`int32`, `float32`…) or check (a multiple of…) is left to zod.
 */
function numberTake(def: SchemaDef, checks: NonNullable<SchemaDef['checks']>): Take | undefined {
  if (def.check !== undefined && (def.check !== 'number_format' || def.format !== 'safeint'))
    return undefined
  const integer = def.format === 'safeint'
  let min = Number.NEGATIVE_INFINITY
  let max = Number.POSITIVE_INFINITY
  let minIncluded = true
  let maxIncluded = true
  for (const { _zod } of checks) {
    const { check, value, inclusive, when } = _zod.def
    if (typeof value !== 'number' || typeof inclusive !== 'boolean' || when !== undefined)
      return undefined
    // The tighter bound wins; at an equal one, an exclusive bound is the tighter.
    if (check === 'greater_than' && (value > min || (value === min && !inclusive))) {
      min = value
      minIncluded = inclusive
    } else if (check === 'less_than' && (value < max || (value === max && !inclusive))) {
      max = value
      maxIncluded = inclusive
    } else if (check !== 'greater_than' && check !== 'less_than') return undefined
  }
  return (value) =>
    typeof value === 'number' &&
    Number.isFinite(value) &&
    (!integer || Number.isSafeInteger(value)) &&
    (minIncluded ? value >= min : value > min) &&
    (maxIncluded ? value <= max : value < max)
      ? value
      : unsure
}

/** The length bounds of `checks`; `undefined` when one is of a kind not in `others` nor a bound. */
function lengthBoundsOf(checks: NonNullable<SchemaDef['checks']>, others: readonly string[] = []) {
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

/** Whether `value` matches `pattern`, tested as zod tests it (from the start of the string). */
function matches(pattern: RegExp, value: string): boolean {
  pattern.lastIndex = 0
  return pattern.test(value)
}

/** Whether a refinement passes `value` for certain: it said `true` (a throw or anything else asks zod). */
function passes(fn: (value: unknown) => unknown, value: unknown): boolean {
  try {
    return fn(value) === true
  } catch {
    return false
  }
}
