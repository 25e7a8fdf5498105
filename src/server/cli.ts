#!/usr/bin/env node
import { Command, InvalidArgumentError, Option } from 'commander'
import type { Credentials } from '../../fixtures/dataset.ts'
import { datasetDefaults } from '../../fixtures/dataset.ts'
import { controlRoutes } from '../control.ts'
import { controlPaths } from '../control-paths.ts'
import { identifyCurlLine } from '../curl-line.ts'
import { resolveOptions } from '../options.ts'
import type { WebhookEndpoint } from '../webhooks/schemas.ts'
import { isLoopbackAddress } from './front-door.ts'
import { type RunningServer, type ServerOptions, ServerStartError, startServer } from './server.ts'
import { StateFileError } from './state-file.ts'
import { addVerifyCommand } from './verify/command.ts'

/** Every option's default, read from the options schema. */
const defaults = resolveOptions()

const program = new Command('identify-api-mock')
  .description('A stateful mock of the Identify and Delete User API.')
  .showSuggestionAfterError()

program
  .command('serve')
  .description('Start the mock as an HTTP server, with seeded default data.')
  .option('--port <port>', 'port to listen on; 0 picks a free one', integer(0, 65535), 4010)
  .option('--host <host>', 'address to bind', '127.0.0.1')
  .option(
    '--allowed-host <host>',
    'a Host name answered besides the loopback ones (repeatable); others get 403',
    collect,
    [],
  )
  .option(
    '--cors <origin>',
    'let a browser app at this origin call the API, e.g. http://localhost:5173 (repeatable)',
    collect,
    [],
  )
  .option(
    '--seed <seed>',
    'fixture seed: the same seed gives the same data',
    integer(),
    datasetDefaults.seed,
  )
  .option(
    '--orgs <n>',
    'organisations the seed creates (org-1, org-2, …); 0 for none',
    integer(0),
    datasetDefaults.organisations,
  )
  .option('--org <orgId>', 'an organisation to add (or give keys to); needs --api-key')
  .option('--api-key <key>', 'an API key for --org (repeatable)', collect, [])
  .option(
    '--users <n>',
    'fixture users per seeded organisation, --org included',
    integer(0),
    datasetDefaults.usersPerOrganisation,
  )
  .option('--token-ttl <seconds>', 'sign-in token lifetime in seconds', positiveNumber, 300)
  .option(
    '--max-users <n>',
    'users the mock holds at most (an identify past it answers 500)',
    integer(1),
    defaults.maxUsers,
  )
  .option(
    '--max-groups-per-org <n>',
    'user groups per organisation at most (an identify past it answers 400)',
    integer(1),
    defaults.maxUserGroupsPerOrganisation,
  )
  .option(
    '--max-tokens-per-user <n>',
    "sign-in tokens kept per user (a new one drops the user's oldest)",
    integer(1),
    defaults.maxTokensPerUser,
  )
  .option(
    '--session-ttl <seconds>',
    'web-view session lifetime in seconds',
    integer(1),
    defaults.sessionTtlSeconds,
  )
  .option('--strict-user-groups', 'answer 400 for userGroups the organisation does not have', false)
  .addOption(
    new Option('--auth-failure-status <status>', 'status for a missing or unknown API key')
      .choices(['401', '403'])
      .default('401'),
  )
  .option('--delay <ms>', 'delay every API answer by this many milliseconds', integer(0), 0)
  .option(
    '--close-message <type>',
    'type of the message the web view posts on close',
    'webview:close',
  )
  .option(
    '--refresh-message <type>',
    'type of the message asking the app for a new token',
    'webview:session-refresh',
  )
  .option('--json', 'print the start-up facts as one JSON line, for scripts', false)
  .option(
    '--journal-size <n>',
    'how many API calls the journal keeps (the newest)',
    integer(1),
    1000,
  )
  .option(
    '--state-file <path>',
    'keep the data in this file: loaded at start, every change on disk before it is answered',
  )
  .option(
    '--webhook-url <url>',
    'post signed webhooks to this endpoint (repeatable; http: is fine locally)',
    collect,
    [],
  )
  .addOption(
    new Option(
      '--webhook-secret <secret>',
      'whsec_ signing secret for every --webhook-url (default: one generated per endpoint, printed)',
    ).env('IDENTIFY_API_MOCK_WEBHOOK_SECRET'),
  )
  .option(
    '--webhook-retry-schedule <ms,ms>',
    "comma-separated ms before each webhook retry, each from the attempt before (default: Svix's)",
    integerList,
  )
  .option('--no-control', 'disable the /__mock control endpoints (they answer 404)')
  .addOption(
    new Option(
      '--control-token <token>',
      'require Authorization: Bearer <token> on the /__mock control endpoints',
    ).env('IDENTIFY_API_MOCK_CONTROL_TOKEN'),
  )
  .action(async (flags: ServeFlags, command: Command) => {
    if (flags.apiKey.length > 0 && !flags.org) command.error('error: --api-key needs --org <orgId>')
    if (flags.org && flags.apiKey.length === 0)
      command.error('error: --org needs at least one --api-key <key>')
    if (flags.controlToken === '') command.error('error: --control-token must not be empty')
    // A secret kept in the environment for the runs that have a --webhook-url is no mistake.
    const secretGiven = command.getOptionValueSource('webhookSecret') === 'cli'
    if (secretGiven && flags.webhookUrl.length === 0)
      command.error('error: --webhook-secret needs at least one --webhook-url <url>')
    if (!flags.control && flags.controlToken !== undefined)
      command.error('error: --control-token needs the control endpoints: drop --no-control')
    await serve(flags)
  })

program
  .command('openapi')
  .description('Print the OpenAPI 3.1 document of the API, or write it to a file.')
  .option('--out <file>', 'write the document to this file instead of standard output')
  .action(async (flags: { out?: string }) => {
    const { createOpenApiDocument } = await import('../openapi.ts')
    const text = `${JSON.stringify(createOpenApiDocument(), null, 2)}\n`
    if (!flags.out) return void process.stdout.write(text)
    const { writeFile } = await import('node:fs/promises')
    await writeFile(flags.out, text)
  })

addVerifyCommand(program)

interface ServeFlags {
  port: number
  host: string
  allowedHost: string[]
  cors: string[]
  seed: number
  orgs: number
  org?: string
  apiKey: string[]
  users: number
  tokenTtl: number
  maxUsers: number
  maxGroupsPerOrg: number
  maxTokensPerUser: number
  sessionTtl: number
  strictUserGroups: boolean
  authFailureStatus: '401' | '403'
  delay: number
  closeMessage: string
  refreshMessage: string
  json: boolean
  journalSize: number
  control: boolean
  controlToken?: string
  stateFile?: string
  webhookUrl: string[]
  webhookSecret?: string
  webhookRetrySchedule?: number[]
}

async function serve(flags: ServeFlags) {
  const options: ServerOptions = {
    port: flags.port,
    host: flags.host,
    allowedHosts: flags.allowedHost,
    cors: flags.cors,
    seed: flags.seed,
    seededOrganisations: flags.orgs,
    usersPerOrganisation: flags.users,
    organisations: flags.org ? [{ orgId: flags.org, apiKeys: flags.apiKey }] : [],
    tokenTtlSeconds: flags.tokenTtl,
    maxUsers: flags.maxUsers,
    maxUserGroupsPerOrganisation: flags.maxGroupsPerOrg,
    maxTokensPerUser: flags.maxTokensPerUser,
    sessionTtlSeconds: flags.sessionTtl,
    strictUserGroups: flags.strictUserGroups,
    authFailureStatus: flags.authFailureStatus === '403' ? 403 : 401,
    delayMs: flags.delay,
    webViewMessages: { close: flags.closeMessage, sessionRefresh: flags.refreshMessage },
    journalSize: flags.journalSize,
    control: flags.control,
    controlToken: flags.controlToken,
    stateFile: flags.stateFile,
    webhooks: flags.webhookUrl.map((url) => ({ url, secret: flags.webhookSecret })),
    webhookRetrySchedule: flags.webhookRetrySchedule,
  }
  let running: RunningServer
  try {
    running = await startServer(options)
  } catch (error) {
    if (
      error instanceof ServerStartError ||
      error instanceof StateFileError ||
      error instanceof TypeError
    )
      fail(error.message)
    throw error
  }
  // Before the banner: a script may signal the server as soon as it reads the URL.
  const stop = () => {
    setTimeout(() => process.exit(0), 1500).unref()
    running.close().then(() => process.exit(0))
  }
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
  const credentials = running.core.credentials
  const webhooks = running.core.webhooks.list()
  const curl = curlLine(running.url, credentials)
  const inspector = flags.control ? `${running.url}${controlPaths.inspector}` : null
  const address = running.server.address()
  if (address && typeof address === 'object' && !isLoopbackAddress(address.address)) {
    process.stderr.write(
      `identify-api-mock: warning: listening on ${address.address}: other machines can reach the mock with its API keys${flags.control && !flags.controlToken ? ', and its /__mock control endpoints (see --control-token, --no-control)' : ''}\n`,
    )
  }
  if (flags.json) {
    process.stdout.write(
      `${JSON.stringify({ url: running.url, organisations: credentials, curl, inspector, webhooks })}\n`,
    )
  } else {
    process.stdout.write(
      banner(running.url, credentials, curl, inspector, webhooks, controlLine(flags)),
    )
  }
}

function curlLine(url: string, credentials: Credentials[]): string | null {
  const org = credentials.find((c) => c.apiKeys.length > 0)
  return org?.apiKeys[0] ? identifyCurlLine(url, org.orgId, org.apiKeys[0]) : null
}

function controlLine(flags: ServeFlags): string {
  if (!flags.control) return 'Controls: off (--no-control).'
  const endpoints = controlRoutes
    .filter((route) => !('open' in route))
    .map((route) => `${route.method} ${route.path}`)
    .join(', ')
  // The token is not printed: unlike the API keys, it was not made up by the mock.
  return flags.controlToken
    ? `Controls (with Authorization: Bearer <your --control-token>): ${endpoints}`
    : `Controls: ${endpoints}`
}

function banner(
  url: string,
  credentials: Credentials[],
  curl: string | null,
  inspector: string | null,
  webhooks: WebhookEndpoint[],
  controls: string,
): string {
  const width = Math.max(0, ...credentials.map((c) => c.orgId.length))
  const orgs = credentials.map(
    (c) => `  ${c.orgId.padEnd(width)}  ${c.apiKeys.join(', ') || '(no key known in clear)'}`,
  )
  return [
    `identify-api-mock listening on ${url}`,
    '',
    credentials.length > 0
      ? 'Organisations and API keys:'
      : 'No organisations: add one with --org <orgId> --api-key <key>.',
    ...orgs,
    '',
    ...(curl ? ['Try it:', `  ${curl}`, ''] : []),
    `Web view: ${url}/webview?orgId=<orgId>&token=<token from identify>&webview=true`,
    ...(inspector ? [`Inspector: ${inspector}`] : []),
    ...(webhooks.length > 0
      ? [
          'Webhooks (endpoint id, URL, signing secret):',
          ...webhooks.map((w) => `  ${w.id}  ${w.url}  ${w.secret}`),
        ]
      : []),
    controls,
    'Stop with Ctrl+C.',
    '',
  ].join('\n')
}

function integer(min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER) {
  return (value: string) => {
    const n = Number(value)
    if (!/^-?\d+$/.test(value) || n < min || n > max) {
      const range =
        max < Number.MAX_SAFE_INTEGER
          ? ` from ${min} to ${max}`
          : min > Number.MIN_SAFE_INTEGER
            ? ` of ${min} or more`
            : ''
      throw new InvalidArgumentError(`expected a whole number${range}.`)
    }
    return n
  }
}

function positiveNumber(value: string) {
  const n = Number(value)
  if (!(n > 0) || !Number.isFinite(n)) throw new InvalidArgumentError('expected a number above 0.')
  return n
}

function integerList(value: string) {
  if (!/^\d+(,\d+)*$/.test(value)) {
    throw new InvalidArgumentError('expected whole numbers of milliseconds, e.g. 100,1000,5000.')
  }
  return value.split(',').map(Number)
}

function collect(value: string, previous: string[]) {
  return [...previous, value]
}

function fail(message: string): never {
  process.stderr.write(`identify-api-mock: ${message}\n`)
  process.exit(1)
}

program
  .parseAsync()
  .catch((error: unknown) => fail(error instanceof Error ? error.message : String(error)))
