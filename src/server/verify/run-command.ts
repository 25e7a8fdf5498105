import { writeFile } from 'node:fs/promises'
import { planVerification } from '../../verify/dry-run.ts'
import { VerifyError, type VerifyOptions } from '../../verify/options.ts'
import { describeLeftBehind, verifyDeployment } from '../../verify/run.ts'
import { type VerifyFlags, verifyExitCodes } from './command.ts'
import { escapeControls, formatPlan, formatReport } from './format-report.ts'
import { formatJUnit } from './junit.ts'

/**
 * Runs `identify-api-mock verify` with its parsed flags, and exits: 0, 1, 2 (one line on stderr,
 * nothing on stdout) or 130 after Ctrl-C, once the throwaway user is deleted.
 *
 * @example
 * await runVerifyCommand({ baseUrl, apiKey, org: 'acme', groups: [], strict: false, timeout: 10_000, idPrefix: 'verify-', json: false, dryRun: false })
 */
export async function runVerifyCommand(flags: VerifyFlags): Promise<never> {
  const interruption = new AbortController()
  process.once('SIGINT', () => interruption.abort())
  const options: VerifyOptions = {
    baseUrl: flags.baseUrl,
    apiKey: flags.apiKey,
    orgId: flags.org,
    otherOrgId: flags.otherOrg,
    groups: flags.groups,
    strict: flags.strict,
    timeoutMs: flags.timeout,
    userIdPrefix: flags.idPrefix,
    signal: interruption.signal,
  }
  try {
    if (flags.dryRun) {
      const plan = planVerification(options)
      return exit(
        verifyExitCodes.ok,
        flags.json ? `${JSON.stringify(plan, null, 2)}\n` : formatPlan(plan),
      )
    }
    const report = await verifyDeployment(options)
    if (flags.junit) await writeJUnit(flags.junit, formatJUnit(report, { strict: flags.strict }))
    for (const line of describeLeftBehind(report.throwawayUser.leftBehind)) {
      process.stderr.write(`identify-api-mock: ${line}\n`)
    }
    const colour = process.stdout.isTTY === true && process.stdout.hasColors()
    const text = flags.json
      ? `${JSON.stringify(report, null, 2)}\n`
      : formatReport(report, { colour, strict: flags.strict })
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
    const code = (error as NodeJS.ErrnoException).code ?? String(error)
    throw new VerifyError('invalid-options', `cannot write the JUnit report to ${file} (${code})`)
  }
}

/** Writes `stdout` (if any), then exits once it is flushed. */
function exit(code: number, stdout = ''): Promise<never> {
  return new Promise(() => {
    process.stdout.write(stdout, () => process.exit(code))
  })
}
