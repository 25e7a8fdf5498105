import { type Command, InvalidArgumentError, Option } from 'commander'
import { verifyDefaults } from '../../verify/options.ts'

export interface VerifyFlags {
  baseUrl: string
  apiKey?: string
  org: string
  otherOrg?: string
  groups: string[]
  strict: boolean
  timeout: number
  idPrefix: string
  json: boolean
  junit?: string
  dryRun: boolean
}

/**
 * How `verify` ends: 0 agreed, 1 a row that counts differs, 2 could not run, 130 interrupted.
 *
 * @example process.exit(report.ok ? verifyExitCodes.ok : verifyExitCodes.differs)
 */
export const verifyExitCodes = { ok: 0, differs: 1, cannotRun: 2, interrupted: 130 } as const

/**
 * Adds `identify-api-mock verify` to the CLI. Its options' errors exit 2 with one line (the
 * program's), like every other reason it cannot run; the run itself is loaded only when the
 * command is used.
 *
 * @example
 * addVerifyCommand(new Command('identify-api-mock')).parseAsync()
 */
export function addVerifyCommand(program: Command): void {
  program
    .command('verify')
    .description(
      'Check the mock against a live deployment of the API: one throwaway user, at most 40 requests, deleted at the end.',
    )
    .requiredOption('--base-url <url>', 'the deployment, e.g. https://staging.example.com')
    .addOption(
      new Option(
        '--api-key <key>',
        'an API key of --org, needed unless --dry-run; never printed',
      ).env('IDENTIFY_API_MOCK_VERIFY_API_KEY'),
    )
    .requiredOption(
      '--org <orgId>',
      'the organisation of the key: the throwaway user is made there',
    )
    .option(
      '--other-org <orgId>',
      'an organisation the key does not belong to (default: a random one)',
    )
    .option('--groups <id,...>', 'existing user groups of --org, to check userGroups', list, [])
    .option('--strict', 'decision rows count as failures too', false)
    .option(
      '--timeout <ms>',
      'per request; a late answer makes its rows differ',
      positiveInteger,
      verifyDefaults.timeoutMs,
    )
    .option(
      '--id-prefix <prefix>',
      "the throwaway user's id before its random part",
      verifyDefaults.userIdPrefix,
    )
    .option('--json', 'print the report as one JSON document', false)
    .option('--junit <file>', 'also write the report as JUnit XML to this file')
    .option('--dry-run', 'print the plan and send nothing', false)
    .exitOverride((error) => {
      process.exit(error.exitCode === 0 ? 0 : verifyExitCodes.cannotRun)
    })
    .action(async (flags: VerifyFlags) => {
      const { runVerifyCommand } = await import('./run-command.ts')
      await runVerifyCommand(flags)
    })
}

function list(value: string, previous: string[]): string[] {
  return [
    ...previous,
    ...value
      .split(',')
      .map((id) => id.trim())
      .filter((id) => id !== ''),
  ]
}

function positiveInteger(value: string): number {
  const n = Number(value)
  if (!/^\d+$/.test(value) || n < 1)
    throw new InvalidArgumentError('expected a whole number above 0.')
  return n
}
