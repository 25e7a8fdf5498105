import { Command, CommanderError, Option } from 'commander'
import { type FlagDoc, SchemaFlags } from '../flags/schema-flags.ts'
import { type ServerOptions, serverOptionsSchema } from './server-options.ts'

/** The path of an option in {@link serverOptionsSchema}: its key, or `parent.key` when nested. */
type OptionPath =
  | keyof ServerOptions
  | `webViewMessages.${keyof NonNullable<ServerOptions['webViewMessages']>}`
  | `chaos.${keyof NonNullable<ServerOptions['chaos']>}`

/**
 * The flags of `serve` whose name is not the one derived from their option's (see
 * {@link SchemaFlags}): the flag and its value's name. An option not named here gets its flag
 * from its own name; what each does, its default, range and messages are the schema's.
 */
const flagNames: Partial<Record<OptionPath, string>> = {
  port: '--port <port>',
  host: '--host <host>',
  allowedHosts: '--allowed-host <host>',
  cors: '--cors <origin>',
  seed: '--seed <seed>',
  seededOrganisations: '--orgs <n>',
  usersPerOrganisation: '--users <n>',
  maxUserGroupsPerOrganisation: '--max-groups-per-org <n>',
  authFailureStatus: '--auth-failure-status <status>',
  'webViewMessages.close': '--close-message <type>',
  'webViewMessages.sessionRefresh': '--refresh-message <type>',
  stateFile: '--state-file <path>',
  webhookRetrySchedule: '--webhook-retry-schedule <ms,ms>',
  controlToken: '--control-token <token>',
  maxOrganisations: '--max-orgs <n>',
  latency: '--latency <json>',
  'chaos.rate': '--chaos <rate>',
  'chaos.cases': '--chaos-cases <case,case>',
  'chaos.seed': '--chaos-seed <n>',
  'chaos.calls': '--chaos-calls <n>',
  'chaos.forMs': '--chaos-for <ms>',
  gateway: '--gateway <name>',
}

/** The flag that names a data file: its option, `data`, is the file's content. */
const dataFlag = '--data <file>'

/** The flags of `serve` that set one option each, read from the server options schema. */
const serveFlags = new SchemaFlags(serverOptionsSchema, flagNames, 'IDENTIFY_API_MOCK_')

/** What the {@link combinedFlags} give, as commander parses them. */
export interface CombinedFlags {
  org?: string
  apiKey?: string[]
  webhookUrl?: string[]
  webhookSecret?: string
  data?: string
}

/**
 * The flags that make one option together (`organisations`, `webhooks`), checked with the whole:
 * see {@link optionsOf}. The schema describes the options; these say how the flags build them.
 */
/** The options that may be given more than once, each time adding an item. */
const repeatables = new WeakSet<Option>()

/** `option` made repeatable: each value, as `item` reads it, is added to the list. */
function repeatable(option: Option, item = (text: string) => text): Option {
  repeatables.add(option)
  return option.argParser((text, previous: string[] = []) => [...previous, item(text)])
}

function combinedFlags(): Option[] {
  return [
    new Option('--org <orgId>', 'an organisation to add (or give keys to); needs --api-key'),
    repeatable(new Option('--api-key <key>', 'an API key for --org (repeatable)')),
    new Option(
      dataFlag,
      'a JSON data file of organisations and users in exact states (see data-schema)',
    ),
    repeatable(
      new Option(
        '--webhook-url <url>',
        'post signed webhooks to this endpoint (repeatable; http: is fine locally)',
      ),
    ),
    new Option(
      '--webhook-secret <secret>',
      'whsec_ signing secret for every --webhook-url (default: one generated per endpoint, printed)',
    ),
  ].map((option) => option.env(serveFlags.envOf(option.flags)))
}

/** Every flag of `serve` that gives an option, for `command.addOption`. */
export function serveOptions(): Option[] {
  const fromSchema = serveFlags.options()
  for (const option of fromSchema) if (serveFlags.isRepeatable(option)) repeatables.add(option)
  return [...fromSchema, ...combinedFlags()]
}

/**
 * The environment variable of a flag: `IDENTIFY_API_MOCK_` and its name in upper snake case.
 *
 * @example environmentVariableOf(new Option('--allowed-host <host>')) // 'IDENTIFY_API_MOCK_ALLOWED_HOST'
 */
function environmentVariableOf(option: Option): string {
  return serveFlags.envOf(option.flags)
}

/**
 * Adds `options` to `command`, each read from its {@link environmentVariableOf environment
 * variable} when the command line does not give it: a repeatable flag's as a comma-separated
 * list, a switch's as on unless it is `false`, `0` or empty.
 */
export function addWithEnvironment(command: Command, options: Option[]): void {
  for (const option of options) {
    const variable = environmentVariableOf(option)
    command.addOption(option.env(variable))
    // Runs after commander's own handler of the variable, and corrects what it set.
    command.on(`optionEnv:${option.name()}`, () => {
      const text = process.env[variable] ?? ''
      const name = option.attributeName()
      if (repeatables.has(option)) {
        try {
          const items = text
            .split(',')
            .reduce<unknown>((list, item) => option.parseArg?.(item, list), undefined)
          command.setOptionValueWithSource(name, items, 'env')
        } catch (error) {
          command.error(`${variable}: ${(error as Error).message}`)
        }
      } else if (!option.required && !option.optional) {
        const on = !/^(false|0|)$/i.test(text.trim())
        command.setOptionValueWithSource(name, option.negate ? !on : on, 'env')
      }
    })
  }
}

/** The flag that sets the option at `path`, if one does. */
export function flagOf(path: string): string | undefined {
  return serveFlags.flagOf(path)
}

/**
 * The environment variable `serve` reads the option at `path` from (`data`: the data file's path).
 *
 * @example variableOf('controlToken') // 'IDENTIFY_API_MOCK_CONTROL_TOKEN'
 */
export function variableOf(path: string): string {
  const flag = path === 'data' ? dataFlag : flagOf(path)
  if (flag === undefined) throw new TypeError(`no serve flag sets ${path}`)
  return serveFlags.envOf(flag)
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
  return {
    organisations: org === undefined ? [] : [{ orgId: org, apiKeys: apiKey }],
    webhooks: webhookUrl.map((url) => ({ url, secret: webhookSecret })),
    ...serveFlags.optionsOf(flags),
  }
}

/** The option a combined flag helps to build. */
function combinedOptionOf(option: Option): string {
  if (option.long === '--data') return 'data'
  return option.long === '--org' || option.long === '--api-key' ? 'organisations' : 'webhooks'
}

/** The rows of the documentation's table of `serve`: one per flag, the combined ones last. */
export function serveFlagDocs(): FlagDoc[] {
  const combined = combinedFlags().map((option) => ({
    flag: option.flags,
    env: option.envVar ?? '',
    option: combinedOptionOf(option),
    default: '',
    description: option.description,
  }))
  return [...serveFlags.docs(), ...combined]
}

/**
 * The options the `IDENTIFY_API_MOCK_*` variables of this process set, read as `serve` reads them
 * (only those set, nested as the schema has them), and the path of the data file its variable
 * names; what the shared-server entries take from the environment. A bad value throws a
 * `TypeError` of one line that names its variable.
 *
 * @example
 * // IDENTIFY_API_MOCK_PORT=4123
 * environmentOptions() // { options: { port: 4123 } }
 */
export function environmentOptions(): { options: Record<string, unknown>; dataFile?: string } {
  const command = new Command()
    .exitOverride()
    .configureOutput({ writeErr: () => undefined, writeOut: () => undefined })
  addWithEnvironment(command, serveOptions())
  try {
    command.parse([], { from: 'user' })
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error
    throw new TypeError(error.message.replace(/^error: /, '').replace(/\s*\n\s*/g, ' '))
  }
  const flags = command.opts()
  const set = Object.fromEntries(
    Object.entries(flags).filter(([name]) => command.getOptionValueSource(name) === 'env'),
  )
  const { organisations, webhooks, ...options } = optionsOf(set) as {
    organisations: unknown[]
    webhooks: unknown[]
  }
  const { data } = set as CombinedFlags
  return {
    options: {
      ...options,
      ...(organisations.length > 0 && { organisations }),
      ...(webhooks.length > 0 && { webhooks }),
    },
    ...(data !== undefined && { dataFile: data }),
  }
}
