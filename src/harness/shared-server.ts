import type { DataFile } from '../api/data-file.ts'
import { readDataFile } from '../server/files/read-data-file.ts'
import { environmentOptions } from '../server/serve-flags.ts'
import { callableUrl, type RunningServer, startServer } from '../server/server.ts'
import type { ServerOptions } from '../server/server-options.ts'
import { type CoverageOptions, coverageOptionsFrom, finishCoverage } from './coverage-report.ts'

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
   * then throws one error naming each group below its threshold (the runner fails the run).
   */
  finish(): Promise<void>
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
  const { data, coverage, ...options } = sharedServerOptions(config)
  // Read before the server starts: a threshold list that cannot be read stops the run at once.
  const coverageOptions = coverageOptionsFrom(coverage)
  const server = await startServer({
    port: 0,
    ...options,
    ...(data !== undefined && {
      data: (typeof data === 'string' ? await readDataFile(data) : data) as DataFile,
    }),
  })
  const finish = async () => {
    const below = await finishCoverage(server.core.coverage(), coverageOptions).finally(() =>
      server.close(),
    )
    if (below.length > 0) throw coverageBelow(below)
  }
  return { url: callableUrl(server.url), server, finish }
}

/** The one error of a run whose coverage is below a threshold: a line per group. */
function coverageBelow(below: readonly string[]): Error {
  const error = new Error(
    `identify-api-mock: contract coverage below its threshold:\n${below.map((line) => `  ${line}`).join('\n')}`,
  )
  // Where the runner prints it, the lines say it all: the stack would only point into this package.
  error.stack = `Error: ${error.message}`
  return error
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
