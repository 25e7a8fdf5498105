import { InvalidArgumentError, Option } from 'commander'
import * as z from 'zod'

/** A flag that sets one option of a schema. */
interface FlagRow<Path extends string = string> {
  /** The option it sets: its key, or `parent.key` when nested. */
  option: Path
  /** The flag and its value's name, e.g. `--port <port>`; a name with a comma takes a list. */
  flag: string
}

/** What the documentation's table says of a flag. */
export interface FlagDoc {
  flag: string
  env: string
  option: string
  default: string
  description: string
}

/** `schema` without its default, prefault or optional wrappers. */
function unwrapped(schema: z.core.$ZodType): z.core.$ZodType {
  if (
    schema instanceof z.ZodDefault ||
    schema instanceof z.ZodPrefault ||
    schema instanceof z.ZodOptional
  ) {
    return unwrapped(schema.unwrap())
  }
  return schema
}

/** The description of a schema, from the outermost wrapper that has one. */
export function descriptionOf(schema: z.core.$ZodType): string {
  const own = z.globalRegistry.get(schema)?.description
  if (own !== undefined) return own
  const inner = unwrapped(schema)
  return inner === schema ? '' : descriptionOf(inner)
}

/** One option of a schema: its path (`parent.key` when nested) and its schema. */
export interface OptionField {
  path: string
  schema: z.core.$ZodType
}

/** The options of `schema` in its order, a nested object's own options in its place. */
export function optionFieldsOf(schema: z.ZodObject, prefix = ''): OptionField[] {
  return Object.entries(schema.shape).flatMap(([key, field]) => {
    const inner = unwrapped(field)
    if (inner instanceof z.ZodObject && noFlagReasonOf(field) === undefined) {
      return optionFieldsOf(inner, `${prefix}${key}.`)
    }
    return [{ path: `${prefix}${key}`, schema: field }]
  })
}

/** Why an option has no flag, as its schema's metadata says (`.meta({ noFlag })`). */
export function noFlagReasonOf(schema: z.core.$ZodType): string | undefined {
  const reason = z.globalRegistry.get(schema)?.noFlag
  return typeof reason === 'string' ? reason : undefined
}

const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)

/**
 * The flag an option gets when no other is named for it: its name in kebab case, a unit suffix
 * as the value's name (`webhookTimeoutMs` is `--webhook-timeout <ms>`), `<n>` for a number, a
 * list of them `<n,n>`, `--no-…` for a boolean that defaults to true.
 */
function derivedFlag(path: string, schema: z.core.$ZodType): string {
  const key = path.split('.').at(-1) ?? path
  const unit = /(Ms|Seconds)$/.exec(key)?.[1]
  const name = kebab(unit ? key.slice(0, -unit.length) : key)
  const type = unwrapped(schema)
  if (type instanceof z.ZodBoolean) {
    return z.safeParse(schema, undefined).data === true ? `--no-${name}` : `--${name}`
  }
  const item = type instanceof z.ZodArray ? unwrapped(type.element) : type
  const value = unit ? unit.toLowerCase() : item instanceof z.ZodNumber ? 'n' : 'value'
  const list = type instanceof z.ZodArray && item instanceof z.ZodNumber
  return `--${name} <${list ? `${value},${value}` : value}>`
}

/** The schema of the option at `path` (`a.b` for a nested one). */
function fieldAt(schema: z.ZodObject, path: string): z.core.$ZodType {
  let field: z.core.$ZodType = schema
  for (const key of path.split('.')) {
    const object = unwrapped(field)
    const next = object instanceof z.ZodObject ? object.shape[key] : undefined
    if (!next) throw new Error(`no option ${path}`)
    field = next
  }
  return field
}

/** Whether a flag's value is a list: its value name has a comma, e.g. `<ms,ms>`. */
const takesList = (row: FlagRow) => row.flag.includes(',')

/**
 * Whether a value of `schema` is given as JSON: an object, or a choice of objects
 * (`--latency '{"fixedMs":50}'`).
 */
function isJson(type: z.core.$ZodType): boolean {
  if (type instanceof z.ZodObject) return true
  return type instanceof z.ZodUnion && type.options.every((option) => isJson(unwrapped(option)))
}

/**
 * A flag's text as the value its schema expects: a number where it wants one, a JSON value where
 * it wants an object (the text as it is when it is not JSON, for the schema to refuse).
 */
function fromText(schema: z.core.$ZodType, text: string, list: boolean): unknown {
  const type = unwrapped(schema)
  if (type instanceof z.ZodArray && list) {
    return text.split(',').map((item) => fromText(type.element, item.trim(), false))
  }
  if (isJson(type)) {
    try {
      return JSON.parse(text)
    } catch {
      return text
    }
  }
  const numeric = type instanceof z.ZodNumber || type instanceof z.ZodLiteral
  if (!numeric) return text
  return /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : Number.NaN
}

/** Whether a value of `schema` comes from text as it is, and is checked with the whole. */
function isText(schema: z.core.$ZodType): boolean {
  const type = unwrapped(schema)
  return type instanceof z.ZodArray
    ? isText(type.element)
    : !(type instanceof z.ZodNumber || type instanceof z.ZodLiteral || isJson(type))
}

/** `value` parsed by `schema`; its messages, in one line, otherwise. */
function checked(schema: z.core.$ZodType, value: unknown): unknown {
  const parsed = z.safeParse(schema, value)
  if (parsed.success) return parsed.data
  const messages = new Set(parsed.error.issues.map((issue) => issue.message))
  throw new InvalidArgumentError(`${[...messages].join('; ')}.`)
}

/**
 * The flags of a command read from the schema of its options: one per option, in the schema's
 * order, but for those whose metadata says why they have none (`.meta({ noFlag })`). Each
 * takes its description, default, whether it is required, its rule and its messages from the
 * schema; its name is derived from the option's (see {@link derivedFlag}) unless `names` gives
 * another (the flag and its value's name: what the schema cannot say). `envPrefix` names the
 * environment variable read when the flag is not given (`IDENTIFY_API_MOCK_` and
 * `--state-file` make `IDENTIFY_API_MOCK_STATE_FILE`).
 *
 * @example
 * const flags = new SchemaFlags(serverOptionsSchema, { port: '--port <port>' }, 'IDENTIFY_API_MOCK_')
 * flags.options() // [Option --port <port>, default 4010, env IDENTIFY_API_MOCK_PORT, …]
 */
export class SchemaFlags<Path extends string> {
  readonly #schema: z.ZodObject
  readonly #rows: readonly FlagRow[]
  readonly #envPrefix: string
  /** The options given once per item of a list, as {@link options} makes them. */
  readonly #repeatable = new WeakSet<Option>()

  constructor(schema: z.ZodObject, names: Partial<Record<Path, string>>, envPrefix: string) {
    this.#schema = schema
    const named: Partial<Record<string, string>> = names
    for (const path of Object.keys(named)) fieldAt(schema, path)
    this.#rows = optionFieldsOf(schema)
      .filter(({ schema }) => noFlagReasonOf(schema) === undefined)
      .map(({ path, schema }) => ({ option: path, flag: named[path] ?? derivedFlag(path, schema) }))
    this.#envPrefix = envPrefix
  }

  /** The environment variable of a flag, e.g. `IDENTIFY_API_MOCK_STATE_FILE` for `--state-file`. */
  envOf(flag: string): string {
    const name = new Option(flag).name()
    return this.#envPrefix + name.replace(/-/g, '_').toUpperCase()
  }

  /**
   * The commander options: description, default, required, environment variable, and a parser
   * that checks a number (or a list) through the schema. Text is checked with the whole options,
   * so that a message names the option or the item (`cors.1`). An empty value is refused for
   * every flag (the CLI's own rule: a shell passes `''` by mistake).
   */
  options(): Option[] {
    return this.#rows.map((row) => {
      const field = fieldAt(this.#schema, row.option)
      const option = new Option(row.flag, this.#helpOf(row, field)).env(this.envOf(row.flag))
      const fallback = z.safeParse(field, undefined)
      if (!fallback.success && this.#parentRequired(row.option)) option.makeOptionMandatory()
      else if (fallback.data !== undefined && !option.negate) option.default(fallback.data)
      if (!option.required && !option.optional) return option
      const nonEmpty = (text: string) => {
        if (text === '') throw new Error(`${option.long} must not be empty`)
        return text
      }
      const list = takesList(row)
      if (isText(field)) {
        if (!(unwrapped(field) instanceof z.ZodArray)) return option.argParser(nonEmpty)
        if (!list) this.#repeatable.add(option)
        return option.argParser((text, previous: unknown[] = []) => [
          ...previous,
          ...(list ? (fromText(field, nonEmpty(text), true) as unknown[]) : [nonEmpty(text)]),
        ])
      }
      return option.argParser((text) => checked(field, fromText(field, nonEmpty(text), list)))
    })
  }

  /**
   * Whether the object holding the option at `path` must be given: an option required within an
   * optional object (`chaos.rate`) is required only with the object's other options.
   */
  #parentRequired(path: string): boolean {
    const parent = path.split('.').slice(0, -1).join('.')
    return parent === '' || !z.safeParse(fieldAt(this.#schema, parent), undefined).success
  }

  /** Whether `option`, one of {@link options}, is given once per item (`--cors a --cors b`). */
  isRepeatable(option: Option): boolean {
    return this.#repeatable.has(option)
  }

  /** The description, with how a list is given. */
  #helpOf(row: FlagRow, field: z.core.$ZodType): string {
    // A `--no-…` flag turns off what the option describes, which is on by default.
    const description = row.flag.startsWith('--no-')
      ? `turns off ${descriptionOf(field)}`
      : descriptionOf(field)
    if (!(unwrapped(field) instanceof z.ZodArray)) return description
    return `${description} (${takesList(row) ? 'comma-separated' : 'repeatable'})`
  }

  /** The flag that sets the option at `path`, if one does. */
  flagOf(path: string): string | undefined {
    const row = this.#rows.find((row) => row.option === path)
    return row && new Option(row.flag).long
  }

  /**
   * The options the flags give, nested as the schema has them; `flags` is what commander parsed.
   *
   * @example flags.optionsOf({ port: 0, closeMessage: 'bye' }) // { port: 0, webViewMessages: { close: 'bye' } }
   */
  optionsOf(flags: Record<string, unknown>): Record<string, unknown> {
    const options: Record<string, unknown> = {}
    for (const row of this.#rows) {
      const value = flags[new Option(row.flag).attributeName()]
      if (value === undefined) continue
      const keys = row.option.split('.')
      const last = keys.pop() as string
      let target = options
      for (const key of keys) {
        target[key] ??= {}
        target = target[key] as Record<string, unknown>
      }
      target[last] = value
    }
    return options
  }

  /** A row per flag for the documentation's table, in the order of the rows. */
  docs(): FlagDoc[] {
    return this.options().map((option, index) => {
      const row = this.#rows[index] as FlagRow
      const fallback = option.negate ? true : option.defaultValue
      return {
        flag: row.flag,
        env: this.envOf(row.flag),
        option: row.option,
        default: fallback === undefined ? '' : JSON.stringify(fallback),
        description: option.description ?? '',
      }
    })
  }
}
