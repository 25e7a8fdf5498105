#!/usr/bin/env node
import { onStopSignal } from './stop-signals.ts'
import './node-check.ts'
import { Command, Option } from 'commander'
import type { ChaosReading } from '../api/chaos-setting.ts'
import type { Gateway } from '../api/gateway.ts'
import { controlPaths } from '../base/control-paths.ts'
import { identifyCurlLine } from '../base/curl-line.ts'
import { type Issue, issueLines } from '../base/issues.ts'
import { packageVersion } from '../base/package-identity.ts'
import { controlRows } from '../control/control-surfaces.ts'
import { unknownVariables } from '../flags/unknown-variables.ts'
import type { Credentials } from '../model/dataset.ts'
import { readGateway } from '../rules/gateway.ts'
import { addVerifyCommand } from '../verify/node/command.ts'
import type { WebhookEndpoint } from '../webhooks/webhook-schemas.ts'
import { fileErrorInWords } from './files/file-errors.ts'
import { readDataFile } from './files/read-data-file.ts'
import { admitsAnyHost, isLoopbackAddress } from './front-door.ts'
import {
  addWithEnvironment,
  type CombinedFlags,
  flagOf,
  optionsOf,
  serveOptions,
} from './serve-flags.ts'
import { callableUrl, type RunningServer, ServerStartError, startServer } from './server.ts'
import { type ResolvedServerOptions, serverOptionsSchema } from './server-options.ts'
import { StateFileError } from './state-file.ts'

// A reader that stops reading (`| head`) has all it wanted: the output ends there, with no trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error
  process.exit(0)
})

const program = new Command('identify-api-mock')
  .description('A stateful mock of the Identify and Delete User API.')
  .showSuggestionAfterError()
  // Every command's errors (the subcommands inherit this): one line, under the program's name.
  .configureOutput({ outputError: (text, write) => write(`identify-api-mock: ${oneLine(text)}\n`) })
  .option('-V, --version', 'print the version and exit')
  .on('option:version', () => {
    process.stdout.write(`${packageVersion}\n`)
    process.exit(0)
  })

const serveCommand = program
  .command('serve')
  .description('Start the mock as an HTTP server, with seeded default data.')
addWithEnvironment(serveCommand, [
  ...serveOptions(),
  new Option('--json', 'print the start-up facts as one JSON line, for scripts').default(false),
])
serveCommand.action(async (flags: CombinedFlags & { json: boolean }, command: Command) => {
  const keys = flags.apiKey?.length ?? 0
  if (keys > 0 && !flags.org) command.error('--api-key needs --org <orgId>')
  if (flags.org && keys === 0) command.error('--org needs at least one --api-key <key>')
  // A secret kept in the environment for the runs that have a --webhook-url is no mistake.
  const secretGiven = command.getOptionValueSource('webhookSecret') === 'cli'
  if (secretGiven && !flags.webhookUrl?.length)
    command.error('--webhook-secret needs at least one --webhook-url <url>')
  const options = optionsOf(command.opts())
  if (flags.data !== undefined) {
    options.data = await readDataFile(flags.data).catch((error: Error) => fail(error.message))
  }
  const parsed = serverOptionsSchema.safeParse(options)
  if (!parsed.success) fail(describeForCli(parsed.error.issues, flags.data))
  await serve(parsed.data, flags.json)
})

/** Commands that print a JSON document the mock generates, or write it to `--out`. */
const documentCommands = [
  {
    name: 'openapi',
    description: 'Print the OpenAPI 3.1 document of the API, or write it to a file.',
    build: async () => (await import('../core/openapi.ts')).createOpenApiDocument(),
  },
  {
    name: 'control-openapi',
    description:
      'Print the OpenAPI 3.1 document of the control endpoints (/__mock), or write it to a file.',
    build: async () =>
      (await import('../control/control-openapi.ts')).createControlOpenApiDocument(),
  },
  {
    name: 'data-schema',
    description: 'Print the JSON Schema of the --data file, or write it to a file.',
    build: async () => (await import('../api/data-file.ts')).dataFileJsonSchema(),
  },
]
for (const { name, description, build } of documentCommands) {
  program
    .command(name)
    .description(description)
    .option('--out <file>', 'write the document to this file instead of standard output')
    .action(async ({ out }: { out?: string }) => {
      const text = `${JSON.stringify(await build(), null, 2)}\n`
      if (!out) return void process.stdout.write(text)
      const { writeFile } = await import('node:fs/promises')
      await writeFile(out, text).catch((error: unknown) =>
        fail(`cannot write ${out}: ${fileErrorInWords(out, error)}`),
      )
    })
}

addVerifyCommand(program)

/**
 * Schema issues in one line, each named by its flag where one flag gave the value; those of the
 * data file one line each, naming `dataFile` and the path in it (`users[1].registrationStatus`).
 */
function describeForCli(issues: readonly Issue[], dataFile: string | undefined): string {
  const inData = issues.filter((issue) => issue.path[0] === 'data')
  const told = issues
    .filter((issue) => issue.path[0] !== 'data')
    .map((issue) => {
      const flag = flagOf(issue.path.map(String).join('.'))
      return flag ? `${flag} ${issue.message}` : `Invalid options: ${issueLines([issue], '')}`
    })
  const lines = issueLines(
    inData.map((issue) => ({ ...issue, path: issue.path.slice(1) })),
    '(the file)',
  ).map((line) => `${dataFile}: ${line}`)
  return [...(told.length > 0 ? [told.join('; ')] : []), ...lines].join('\n')
}

async function serve(options: ResolvedServerOptions, json: boolean) {
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
  let stopping = false
  const stop = () => {
    if (stopping) return
    stopping = true
    setTimeout(() => process.exit(0), 1500).unref()
    running.close().then(() => process.exit(0))
  }
  onStopSignal(stop)
  // npm (npx, npm exec, npm run) runs a bin under `sh -c` and does not pass a SIGTERM on: stopping
  // `npx identify-api-mock serve` ends npm and the shell and would leave the server running, its
  // parent gone. Run by a package runner, the server stops when the process that started it is gone.
  if (process.env.npm_config_user_agent !== undefined) {
    const starter = process.ppid
    setInterval(() => process.ppid !== starter && stop(), 200).unref()
  }
  const credentials = running.core.credentials
  const webhooks = running.core.webhooks.list()
  const address = running.server.address()
  // Bound to every interface (in a container, always), `http://0.0.0.0:4010` is no address to call:
  // the banner shows the loopback one, which works here (inside the container), and says that from
  // outside a container the address is the one its engine publishes the port on.
  const everywhere =
    address !== null && typeof address === 'object' && ['0.0.0.0', '::'].includes(address.address)
  const url = callableUrl(running.url)
  const curl = curlLine(url, credentials)
  const inspector = options.control ? `${url}${controlPaths.inspector}` : null
  const chaos = chaosLine(running.core.chaos.read())
  const gateway = gatewayLine(await running.core.transact((ctx) => readGateway(ctx, undefined)))
  if (address && typeof address === 'object' && !isLoopbackAddress(address.address)) {
    process.stderr.write(
      `identify-api-mock: warning: listening on ${address.address}: other machines can reach the mock with its API keys${options.control && !options.controlToken ? ', and its /__mock control endpoints (see --control-token, --no-control)' : ''}\n`,
    )
  }
  if (admitsAnyHost(options.allowedHosts)) {
    process.stderr.write(
      'identify-api-mock: warning: --allowed-host any: every Host is answered, so a web page at any name (DNS rebinding) can reach the mock\n',
    )
  }
  if (json) {
    process.stdout.write(
      `${JSON.stringify({ url: running.url, pid: process.pid, organisations: credentials, curl, inspector, webhooks })}\n`,
    )
  } else {
    const port = new URL(running.url).port
    const listening = everywhere
      ? [
          `identify-api-mock listening on ${url} (every interface, port ${port})`,
          `In a container, this is the address inside it: from outside, call the address and port the engine publishes ${port} on (docker port <container> ${port}).`,
        ]
      : [`identify-api-mock listening on ${url}`]
    process.stdout.write(
      banner(listening, url, credentials, curl, inspector, webhooks, [
        ...(gateway ? [gateway] : []),
        ...(chaos ? [chaos] : []),
        controlLine(options),
      ]),
    )
  }
}

function curlLine(url: string, credentials: Credentials[]): string | null {
  const org = credentials.find((c) => c.apiKeys.length > 0)
  return org?.apiKeys[0] ? identifyCurlLine(url, org.orgId, org.apiKeys[0]) : null
}

/** What the banner says of `--gateway`: the failures a client meets come as that gateway gives them. */
function gatewayLine({ gateway, readTimeoutMs, buffering }: Gateway): string | null {
  if (gateway === 'none') return null
  const buffered = buffering === undefined ? '' : `, buffering ${buffering ? 'on' : 'off'}`
  return `Gateway: ${gateway} in front of the API (read timeout ${readTimeoutMs} ms${buffered}): every failure arrives as ${gateway} gives it (GET ${controlPaths.gateway}).`
}

/** What the banner says of `--chaos`: the seed first, so that a run that failed can be replayed. */
function chaosLine(chaos: ChaosReading | null): string | null {
  if (chaos === null) return null
  const share = `${Math.round(chaos.rate * 10_000) / 100} %`
  return `Chaos: ${share} of calls meet a failure case, seed ${chaos.seed} (replay with --chaos-seed ${chaos.seed}; GET ${controlPaths.chaos}).`
}

function controlLine(options: ResolvedServerOptions): string {
  if (!options.control) return 'Controls: off (--no-control).'
  const endpoints = controlRows()
    .filter(({ row }) => !row.always)
    .map(({ row }) => `${row.method} ${row.path}`)
    .join(', ')
  // The token is not printed: unlike the API keys, it was not made up by the mock.
  return options.controlToken
    ? `Controls (with Authorization: Bearer <your --control-token>): ${endpoints}`
    : `Controls: ${endpoints}`
}

function banner(
  listening: string[],
  url: string,
  credentials: Credentials[],
  curl: string | null,
  inspector: string | null,
  webhooks: WebhookEndpoint[],
  controls: string[],
): string {
  const width = Math.max(0, ...credentials.map((c) => c.orgId.length))
  const orgs = credentials.map(
    (c) => `  ${c.orgId.padEnd(width)}  ${c.apiKeys.join(', ') || '(no key known in clear)'}`,
  )
  return [
    ...listening,
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
    ...controls,
    'Stop with Ctrl+C.',
    '',
  ].join('\n')
}

/** A message of commander's as one line, without its own `error: ` (the caller prefixes the name). */
function oneLine(text: string): string {
  return text
    .replace(/^error: /, '')
    .trim()
    .replace(/\s*\n\s*/g, ' ')
}

/** The prefix of every variable the CLI reads. */
const envPrefix = 'IDENTIFY_API_MOCK_'

function fail(message: string): never {
  const lines = message.split('\n').map((line) => `identify-api-mock: ${line}\n`)
  process.stderr.write(lines.join(''))
  process.exit(1)
}

// Before any command runs: a misspelt variable would be ignored without a word.
program.hook('preAction', () => {
  const known = program.commands.flatMap((command) =>
    command.options.flatMap((option) => (option.envVar ? [option.envVar] : [])),
  )
  for (const { name, closest } of unknownVariables(process.env, envPrefix, known)) {
    process.stderr.write(
      `identify-api-mock: warning: ${name} is set, but no option reads it${closest ? ` (did you mean ${closest}?)` : ''}\n`,
    )
  }
})

program
  .parseAsync()
  .catch((error: unknown) => fail(error instanceof Error ? error.message : String(error)))
