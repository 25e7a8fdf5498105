import type { Command } from 'commander'
import { type FlagDoc, SchemaFlags } from '../../flags/schema-flags.ts'
import { type VerifyPlanOptions, verifyPlanOptionsSchema } from '../verify-options.ts'
import { verifyExitCodes } from './exit-codes.ts'

/**
 * The flags of `verify`, one per option of `verifyDeployment`, read from its schema (see
 * {@link SchemaFlags}); named here where the derived name is not the one to type.
 */
const verifyFlags = new SchemaFlags<keyof VerifyPlanOptions>(
  verifyPlanOptionsSchema,
  {
    baseUrl: '--base-url <url>',
    apiKey: '--api-key <key>',
    orgId: '--org <orgId>',
    otherOrgId: '--other-org <orgId>',
    groups: '--groups <id,...>',
    userIdPrefix: '--id-prefix <prefix>',
  },
  'IDENTIFY_API_MOCK_VERIFY_',
)

/** The rows of the documentation's table of `verify`: one per flag of an option. */
export function verifyFlagDocs(): FlagDoc[] {
  return verifyFlags.docs()
}

/**
 * Adds `identify-api-mock verify` to the CLI. Its options' errors exit 2 with one line (the
 * program's), like every other reason it cannot run; the run itself is loaded only when the
 * command is used.
 *
 * @example
 * addVerifyCommand(new Command('identify-api-mock')).parseAsync()
 */
export function addVerifyCommand(program: Command): void {
  const command = program
    .command('verify')
    .description(
      'Check the mock against a live deployment of the API: one throwaway user, at most 40 requests, deleted at the end.',
    )
  for (const option of verifyFlags.options()) command.addOption(option)
  command
    .option('--json', 'print the report as one JSON document', false)
    .option('--junit <file>', 'also write the report as JUnit XML to this file')
    .option('--dry-run', 'print the plan and send nothing', false)
    .exitOverride((error) => {
      process.exit(error.exitCode === 0 ? 0 : verifyExitCodes.cannotRun)
    })
    .action(async (flags: Record<string, unknown> & CommandFlags) => {
      const { runVerifyCommand } = await import('./run-command.ts')
      const options = verifyFlags.optionsOf(flags) as VerifyPlanOptions
      await runVerifyCommand(options, {
        json: flags.json,
        junit: flags.junit,
        dryRun: flags.dryRun,
      })
    })
}

/** The flags of the command itself, beside those of the options. */
interface CommandFlags {
  json: boolean
  junit?: string
  dryRun: boolean
}
