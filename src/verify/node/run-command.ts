import { writeFile } from 'node:fs/promises'
import { fileErrorInWords } from '../../server/files/file-errors.ts'
import { planVerification } from '../dry-run.ts'
import { formatJUnit } from '../junit.ts'
import { describeLeftBehind, verifyDeployment } from '../run.ts'
import { VerifyError, type VerifyPlanOptions } from '../verify-options.ts'
import { verifyExitCodes } from './exit-codes.ts'
import { escapeControls, formatPlan, formatReport } from './format-report.ts'

/** What `verify` does with a run beside the options of `verifyDeployment`. */
export interface VerifyOutput {
  /** Print the report (or the plan) as one JSON document. */
  json: boolean
  /** Also write the report as JUnit XML to this file. */
  junit?: string | undefined
  /** Print the plan and send nothing. */
  dryRun: boolean
}

/**
 * Runs `identify-api-mock verify` with the options its flags give, and exits: 0, 1, 2 (one line
 * on stderr, nothing on stdout) or 130 after Ctrl-C, once the throwaway user is deleted.
 *
 * @example
 * await runVerifyCommand({ baseUrl, apiKey, orgId: 'acme' }, { json: false, dryRun: false })
 */
export async function runVerifyCommand(
  given: VerifyPlanOptions,
  flags: VerifyOutput,
): Promise<never> {
  const interruption = new AbortController()
  process.once('SIGINT', () => interruption.abort())
  const options: VerifyPlanOptions = { ...given, signal: interruption.signal }
  try {
    if (flags.dryRun) {
      const plan = planVerification(options)
      return exit(
        verifyExitCodes.ok,
        flags.json ? `${JSON.stringify(plan, null, 2)}\n` : formatPlan(plan),
      )
    }
    // A dry run sends nothing, so only a run needs the key.
    if (options.apiKey === undefined) {
      throw new VerifyError(
        'invalid-options',
        "required option '--api-key <key>' not specified (or set IDENTIFY_API_MOCK_VERIFY_API_KEY)",
      )
    }
    const report = await verifyDeployment({ ...options, apiKey: options.apiKey })
    if (flags.junit)
      await writeJUnit(flags.junit, formatJUnit(report, { strict: options.strict ?? false }))
    for (const line of describeLeftBehind(report.throwawayUser.leftBehind)) {
      process.stderr.write(`identify-api-mock: ${line}\n`)
    }
    const colour = process.stdout.isTTY === true && process.stdout.hasColors()
    const text = flags.json
      ? `${JSON.stringify(report, null, 2)}\n`
      : formatReport(report, { colour, strict: options.strict ?? false })
    return exit(report.ok ? verifyExitCodes.ok : verifyExitCodes.differs, text)
  } catch (error) {
    if (!(error instanceof VerifyError)) throw error
    process.stderr.write(`identify-api-mock: ${escapeControls(error.message)}\n`)
    return exit(
      error.reason === 'interrupted' ? verifyExitCodes.interrupted : verifyExitCodes.cannotRun,
    )
  }
}

async function writeJUnit(file: string, xml: string) {
  try {
    await writeFile(file, xml)
  } catch (error) {
    throw new VerifyError(
      'invalid-options',
      `cannot write the JUnit report to ${file}: ${fileErrorInWords(file, error)}`,
    )
  }
}

/** Writes `stdout` (if any), then exits once it is flushed. */
function exit(code: number, stdout = ''): Promise<never> {
  return new Promise(() => {
    process.stdout.write(stdout, () => process.exit(code))
  })
}
