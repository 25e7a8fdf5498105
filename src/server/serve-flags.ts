import { Option } from 'commander'
import { type FlagDoc, SchemaFlags } from '../flags/schema-flags.ts'
import { type ServerOptions, serverOptionsSchema } from './server-options.ts'

/** The path of an option in {@link serverOptionsSchema}: its key, or `parent.key` when nested. */
type OptionPath =
  | keyof ServerOptions
  | `webViewMessages.${keyof NonNullable<ServerOptions['webViewMessages']>}`

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
}

/** The flags of `serve` that set one option each, read from the server options schema. */
export const serveFlags = new SchemaFlags(serverOptionsSchema, flagNames, 'IDENTIFY_API_MOCK_')

/** What the {@link combinedFlags} give, as commander parses them. */
export interface CombinedFlags {
  org?: string
  apiKey?: string[]
  webhookUrl?: string[]
  webhookSecret?: string
}

/**
 * The flags that make one option together (`organisations`, `webhooks`), checked with the whole:
 * see {@link optionsOf}. The schema describes the options; these say how the flags build them.
 */
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
    ),
  ].map((option) => option.env(serveFlags.envOf(option.flags)))
}

/** Every flag of `serve` that gives an option, for `command.addOption`. */
export function serveOptions(): Option[] {
  return [...serveFlags.options(), ...combinedFlags()]
}

/** The flag that sets the option at `path`, if one does. */
export function flagOf(path: string): string | undefined {
  return serveFlags.flagOf(path)
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

/** The rows of the documentation's table of `serve`: one per flag, the combined ones last. */
export function serveFlagDocs(): FlagDoc[] {
  const combined = combinedFlags().map((option) => ({
    flag: option.flags,
    env: option.envVar ?? '',
    option: option.long === '--org' || option.long === '--api-key' ? 'organisations' : 'webhooks',
    default: '',
    description: option.description,
  }))
  return [...serveFlags.docs(), ...combined]
}
