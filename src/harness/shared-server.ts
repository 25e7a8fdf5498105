import type { DataFile } from '../api/data-file.ts'
import { InvalidInput } from '../base/errors.ts'
import { describeIssues } from '../base/issues.ts'
import { readDataFile } from '../server/files/read-data-file.ts'
import { environmentOptions, variableOf } from '../server/serve-flags.ts'
import { callableUrl, type RunningServer, ServerStartError, startServer } from '../server/server.ts'
import { type ServerOptions, serverOptionsSchema } from '../server/server-options.ts'
import { StateFileError } from '../server/state-file.ts'
import {
  belowThresholdText,
  type CoverageOptions,
  coverageOptionsFrom,
  finishCoverage,
  SetupError,
} from './coverage-report.ts'

export { SetupError } from './coverage-report.ts'

/**
 * The shared server's options, as a test runner's config gives them: `startServer`'s, the port
 * included (a free loopback port when none is given), and the data file as an object or the path
 * of a JSON file. The `IDENTIFY_API_MOCK_*` variables that `serve` reads set them too, and win over
 * the config (docs/decisions/shared-server-options.md).
 */
export type SharedServerOptions = Omit<ServerOptions, 'data'> & {
  /** The data file: its content, or the path of the JSON file (as `--data` takes it). */
  data?: DataFile | string
  /**
   * What the end of the run does with the contract coverage of the whole run: the table is
   * printed unless `print: false`; JSON, Markdown and thresholds as asked, here or by the
   * `IDENTIFY_API_MOCK_COVERAGE_*` variables (docs/guides/coverage.md).
   */
  coverage?: CoverageOptions
}

/** The run's shared server, and what its end does (see {@link startSharedServer}). */
export interface SharedServer {
  /** Where this machine calls it. */
  url: string
  server: RunningServer
  /**
   * The end of the run: prints the coverage table, writes the files asked, stops the server, and
   * resolves to the lines naming each group below its threshold, if any (the runner's entry prints
   * them last and fails the run).
   */
  finish(): Promise<string | undefined>
}

/**
 * The options of the run's shared server: `config`, and over it those the `IDENTIFY_API_MOCK_*`
 * variables of this process set (`IDENTIFY_API_MOCK_DATA` is the data file's path). The setup and
 * the workers read the same, so a worker's client has the control token the server took.
 *
 * @example
 * // IDENTIFY_API_MOCK_PORT=4123
 * sharedServerOptions({ seed: 7 }) // { seed: 7, port: 4123 }
 */
export function sharedServerOptions(config: SharedServerOptions = {}): SharedServerOptions {
  const { options, dataFile } = environmentOptions()
  return { ...config, ...options, ...(dataFile !== undefined && { data: dataFile }) }
}

/**
 * Starts the run's shared server with {@link sharedServerOptions} of `config`, on a free loopback
 * port unless a port is given; `url` is where this machine calls it.
 *
 * @example const { url, finish } = await startSharedServer({ seed: 7 })
 */
export async function startSharedServer(config: SharedServerOptions = {}): Promise<SharedServer> {
  // Everything read before the server starts, and said in one line: a variable's bad value, a
  // threshold of no group, a data file that cannot be read stop the run before its first test.
  let given: SharedServerOptions
  let fromEnvironment: Record<string, unknown>
  try {
    fromEnvironment = environmentOptions().options
    given = sharedServerOptions(config)
  } catch (error) {
    throw inOneLine(error)
  }
  const { data, coverage, ...options } = given
  const coverageOptions = coverageOptionsFrom(coverage)
  const dataFile =
    typeof data === 'string'
      ? await readDataFile(data).catch((error: unknown) => {
          throw inOneLine(error)
        })
      : data
  const serverOptions = {
    port: 0,
    ...options,
    ...(dataFile !== undefined && { data: dataFile as DataFile }),
  }
  // Checked here as startServer checks them, to name the variable that set an option refused.
  const parsed = serverOptionsSchema.safeParse(serverOptions)
  if (!parsed.success) {
    const [key] = parsed.error.issues[0]?.path ?? []
    const where =
      typeof key === 'string' && key in fromEnvironment ? variableOfOption(key) : undefined
    const problem = describeIssues(parsed.error.issues, '')
    throw new SetupError(where ? `${where}: ${problem}` : `Invalid options: ${problem}`)
  }
  const server = await startServer(serverOptions).catch((error: unknown) => {
    // A control token, an address or a state file it cannot use, or a Node too old: a setting.
    if (
      error instanceof InvalidInput ||
      error instanceof ServerStartError ||
      error instanceof StateFileError ||
      /needs Node/.test(String(error))
    ) {
      const token = /control token/.test(String(error)) && 'controlToken' in fromEnvironment
      throw new SetupError(
        `${token ? `${variableOfOption('controlToken')}: ` : ''}${(error as Error).message}`,
      )
    }
    throw error
  })
  const finish = async () => {
    const below = await finishCoverage(server.core.coverage(), coverageOptions).finally(() =>
      server.close(),
    )
    return below.length > 0 ? belowThresholdText(below) : undefined
  }
  return { url: callableUrl(server.url), server, finish }
}

/** The variable that sets option `key` (of the combined ones, the first flag's). */
function variableOfOption(key: string): string | undefined {
  const combined: Record<string, string> = {
    organisations: 'IDENTIFY_API_MOCK_ORG',
    webhooks: 'IDENTIFY_API_MOCK_WEBHOOK_URL',
  }
  try {
    return combined[key] ?? variableOf(key)
  } catch {
    return undefined
  }
}

/**
 * A `TypeError` of a setting (a variable's value, a data file, each refused in a line that names
 * it) as a {@link SetupError}: one line, no stack. Any other error as it is.
 */
function inOneLine(error: unknown): unknown {
  return error instanceof TypeError ? new SetupError(error.message) : error
}

/**
 * The one-line error of a test file that reaches for the shared server when the run has none: it
 * names the setup to add.
 *
 * @example throw missingSetup('vitest', "globalSetup: ['identify-api-mock/vitest-server']")
 */
export function missingSetup(runner: string, setup: string): Error {
  const error = new Error(
    `identify-api-mock: no shared server for this test file: add ${setup} to the ${runner} config`,
  )
  // One line where the runner prints it: the stack would only point into this package.
  error.stack = `Error: ${error.message}`
  return error
}
