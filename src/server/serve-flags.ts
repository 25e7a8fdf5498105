import { Option } from 'commander'
import { type FlagDoc, type FlagRow, SchemaFlags } from '../flags/schema-flags.ts'
import { type ServerOptions, serverOptionsSchema } from './server-options.ts'

/** The path of an option in {@link serverOptionsSchema}: its key, or `parent.key` when nested. */
type OptionPath =
  | keyof ServerOptions
  | `webViewMessages.${keyof NonNullable<ServerOptions['webViewMessages']>}`

/**
 * The flags of `serve` that set one option each: the flag and its value's name. What each does,
 * its default, range and messages are the schema's (see {@link SchemaFlags}).
 */
const optionFlags: readonly FlagRow<OptionPath>[] = [
  { option: 'port', flag: '--port <port>' },
  { option: 'host', flag: '--host <host>' },
  { option: 'allowedHosts', flag: '--allowed-host <host>' },
  { option: 'cors', flag: '--cors <origin>' },
  { option: 'seed', flag: '--seed <seed>' },
  { option: 'seededOrganisations', flag: '--orgs <n>' },
  { option: 'usersPerOrganisation', flag: '--users <n>' },
  { option: 'tokenTtlSeconds', flag: '--token-ttl <seconds>' },
  { option: 'maxUsers', flag: '--max-users <n>' },
  { option: 'maxUserGroupsPerOrganisation', flag: '--max-groups-per-org <n>' },
  { option: 'maxTokensPerUser', flag: '--max-tokens-per-user <n>' },
  { option: 'sessionTtlSeconds', flag: '--session-ttl <seconds>' },
  { option: 'strictUserGroups', flag: '--strict-user-groups' },
  { option: 'authFailureStatus', flag: '--auth-failure-status <status>' },
  { option: 'delayMs', flag: '--delay <ms>' },
  { option: 'webViewMessages.close', flag: '--close-message <type>' },
  { option: 'webViewMessages.sessionRefresh', flag: '--refresh-message <type>' },
  { option: 'journalSize', flag: '--journal-size <n>' },
  { option: 'stateFile', flag: '--state-file <path>' },
  { option: 'webhookRetrySchedule', flag: '--webhook-retry-schedule <ms,ms>' },
  { option: 'webhookTimeoutMs', flag: '--webhook-timeout <ms>' },
  { option: 'control', flag: '--no-control' },
  { option: 'controlToken', flag: '--control-token <token>' },
  { option: 'headersTimeoutMs', flag: '--headers-timeout <ms>' },
  { option: 'requestTimeoutMs', flag: '--request-timeout <ms>' },
  { option: 'keepAliveTimeoutMs', flag: '--keep-alive-timeout <ms>' },
  { option: 'maxRequestsPerSocket', flag: '--max-requests-per-socket <n>' },
]

/** The flags of `serve` that set one option each, read from the server options schema. */
export const serveFlags = new SchemaFlags(serverOptionsSchema, optionFlags, 'IDENTIFY_API_MOCK_')

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
