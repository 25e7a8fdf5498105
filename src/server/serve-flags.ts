import { InvalidArgumentError, Option } from 'commander'
import { z } from 'zod'
import { type ServerOptions, serverOptionsSchema } from './server-options.ts'

/** The path of an option in {@link serverOptionsSchema}: its key, or `parent.key` when nested. */
type OptionPath =
  | keyof ServerOptions
  | `webViewMessages.${keyof NonNullable<ServerOptions['webViewMessages']>}`

/** A flag of `serve` that sets one option. */
interface OptionFlag {
  flags: string
  /** The option it sets, e.g. `port` or `webViewMessages.close`. */
  option: OptionPath
  description: string
  /** An environment variable read when the flag is not given. */
  env?: string
}

/**
 * The flags of `serve` that set one option each. Their defaults, ranges and messages are the
 * schema's: an array of strings is a repeatable flag, an array of numbers a comma-separated list.
 */
const optionFlags: OptionFlag[] = [
  { flags: '--port <port>', option: 'port', description: 'port to listen on; 0 picks a free one' },
  { flags: '--host <host>', option: 'host', description: 'address to bind' },
  {
    flags: '--allowed-host <host>',
    option: 'allowedHosts',
    description: 'a Host name answered besides the loopback ones (repeatable); others get 403',
  },
  {
    flags: '--cors <origin>',
    option: 'cors',
    description:
      'let a browser app at this origin call the API, e.g. http://localhost:5173 (repeatable)',
  },
  {
    flags: '--seed <seed>',
    option: 'seed',
    description: 'fixture seed: the same seed gives the same data',
  },
  {
    flags: '--orgs <n>',
    option: 'seededOrganisations',
    description: 'organisations the seed creates (org-1, org-2, …); 0 for none',
  },
  {
    flags: '--users <n>',
    option: 'usersPerOrganisation',
    description: 'fixture users per seeded organisation, --org included',
  },
  {
    flags: '--token-ttl <seconds>',
    option: 'tokenTtlSeconds',
    description: 'sign-in token lifetime in seconds',
  },
  {
    flags: '--max-users <n>',
    option: 'maxUsers',
    description: 'users the mock holds at most (an identify past it answers 500)',
  },
  {
    flags: '--max-groups-per-org <n>',
    option: 'maxUserGroupsPerOrganisation',
    description: 'user groups per organisation at most (an identify past it answers 400)',
  },
  {
    flags: '--max-tokens-per-user <n>',
    option: 'maxTokensPerUser',
    description: "sign-in tokens kept per user (a new one drops the user's oldest)",
  },
  {
    flags: '--session-ttl <seconds>',
    option: 'sessionTtlSeconds',
    description: 'web-view session lifetime in seconds',
  },
  {
    flags: '--max-sessions-per-user <n>',
    option: 'maxSessionsPerUser',
    description: "web-view sessions kept per user (a new one drops the user's oldest)",
  },
  {
    flags: '--max-state-bytes <n>',
    option: 'maxStateBytes',
    description: 'JSON size of everything stored at most (an operation past it answers 500)',
  },
  {
    flags: '--strict-user-groups',
    option: 'strictUserGroups',
    description: 'answer 400 for userGroups the organisation does not have',
  },
  {
    flags: '--auth-failure-status <status>',
    option: 'authFailureStatus',
    description: 'status for a missing or unknown API key: 401 or 403',
  },
  {
    flags: '--delay <ms>',
    option: 'delayMs',
    description: 'delay every API answer by this many milliseconds',
  },
  {
    flags: '--close-message <type>',
    option: 'webViewMessages.close',
    description: 'type of the message the web view posts on close',
  },
  {
    flags: '--refresh-message <type>',
    option: 'webViewMessages.sessionRefresh',
    description: 'type of the message asking the app for a new token',
  },
  {
    flags: '--journal-size <n>',
    option: 'journalSize',
    description: 'how many API calls the journal keeps (the newest)',
  },
  {
    flags: '--state-file <path>',
    option: 'stateFile',
    description:
      'keep the data in this file: loaded at start, every change on disk before it is answered',
  },
  {
    flags: '--max-connections <n>',
    option: 'maxConnections',
    description: 'connections open at once at most (a request on one more answers 503)',
  },
  {
    flags: '--webhook-retry-schedule <ms,ms>',
    option: 'webhookRetrySchedule',
    description:
      "comma-separated ms before each webhook retry, each from the attempt before (Svix's)",
  },
  {
    flags: '--no-control',
    option: 'control',
    description: 'disable the /__mock control endpoints (they answer 404)',
  },
  {
    flags: '--control-token <token>',
    option: 'controlToken',
    description: 'require Authorization: Bearer <token> on the /__mock control endpoints',
    env: 'IDENTIFY_API_MOCK_CONTROL_TOKEN',
  },
]

/** What the {@link combinedFlags} give, as commander parses them. */
export interface CombinedFlags {
  org?: string
  apiKey?: string[]
  webhookUrl?: string[]
  webhookSecret?: string
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

/** The schema of the option at `path` (`a.b` for a nested one). */
function fieldAt(path: string): z.core.$ZodType {
  let field: z.core.$ZodType = serverOptionsSchema
  for (const key of path.split('.')) {
    const object = unwrapped(field)
    const next = object instanceof z.ZodObject ? object.shape[key] : undefined
    if (!next) throw new Error(`no option ${path}`)
    field = next
  }
  return field
}

/** A flag's text as the value its schema expects: a number where it wants one. */
function fromText(schema: z.core.$ZodType, text: string): unknown {
  const type = unwrapped(schema)
  if (type instanceof z.ZodArray) return text.split(',').map((item) => fromText(type.element, item))
  const numeric = type instanceof z.ZodNumber || type instanceof z.ZodLiteral
  if (!numeric) return text
  return /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : Number.NaN
}

/** `value` parsed by `schema`; its messages, in one line, otherwise. */
function checked(schema: z.core.$ZodType, value: unknown): unknown {
  const parsed = z.safeParse(schema, value)
  if (parsed.success) return parsed.data
  const messages = new Set(parsed.error.issues.map((issue) => issue.message))
  throw new InvalidArgumentError(`${[...messages].join('; ')}.`)
}

/**
 * The commander option of `flag`: its default, and a parser that checks through the schema. An
 * empty value is refused for every flag (the CLI's own rule: a shell passes `''` by mistake).
 */
function optionOf(flag: OptionFlag): Option {
  const option = new Option(flag.flags, flag.description)
  const field = fieldAt(flag.option)
  const type = unwrapped(field)
  const fallback = z.safeParse(field, undefined)
  if (fallback.success && fallback.data !== undefined && !option.negate) {
    option.default(fallback.data)
  }
  if (flag.env) option.env(flag.env)
  if (!option.required && !option.optional) return option
  const nonEmpty = (text: string) => {
    if (text === '') throw new Error(`${option.long} must not be empty`)
    return text
  }
  if (type instanceof z.ZodArray && !(unwrapped(type.element) instanceof z.ZodNumber)) {
    // Checked as a whole with the other options, so that a message names the item (`cors.1`).
    return option.argParser((text, previous: string[] = []) => [...previous, nonEmpty(text)])
  }
  return option.argParser((text) => checked(field, fromText(field, nonEmpty(text))))
}

/** The flags that make one option together, checked with the whole: see {@link optionsOf}. */
function combinedFlags(): Option[] {
  const collect = (text: string, previous: string[] = []) => [...previous, text]
  return [
    new Option('--org <orgId>', 'an organisation to add (or give keys to); needs --api-key'),
    new Option('--api-key <key>', 'an API key for --org (repeatable)').argParser(collect),
    new Option(
      '--webhook-url <url>',
      'post signed webhooks to this endpoint (repeatable; http: is fine locally)',
    ).argParser(collect),
    new Option(
      '--webhook-secret <secret>',
      'whsec_ signing secret for every --webhook-url (default: one generated per endpoint, printed)',
    ).env('IDENTIFY_API_MOCK_WEBHOOK_SECRET'),
  ]
}

/** Every flag of `serve` that gives an option, for `command.addOption`. */
export function serveOptions(): Option[] {
  return [...optionFlags.map(optionOf), ...combinedFlags()]
}

/** The flag that sets the option at `path`, if one does. */
export function flagOf(path: string): string | undefined {
  const flag = optionFlags.find((flag) => flag.option === path)
  return flag && new Option(flag.flags).long
}

/**
 * The options the flags give, nested as the schema has them; `flags` is what commander parsed.
 *
 * @example
 * optionsOf({ port: 0, closeMessage: 'bye' })
 * // { organisations: [], webhooks: [], port: 0, webViewMessages: { close: 'bye' } }
 */
export function optionsOf(flags: Record<string, unknown>): Record<string, unknown> {
  const { org, apiKey = [], webhookUrl = [], webhookSecret } = flags as CombinedFlags
  const options: Record<string, unknown> = {
    organisations: org === undefined ? [] : [{ orgId: org, apiKeys: apiKey }],
    webhooks: webhookUrl.map((url) => ({ url, secret: webhookSecret })),
  }
  for (const flag of optionFlags) {
    const value = flags[new Option(flag.flags).attributeName()]
    if (value === undefined) continue
    const keys = flag.option.split('.')
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
