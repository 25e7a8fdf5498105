/**
 * Contract coverage of a vitest suite whose tests create their own mocks (`createMockApi()`): a
 * reporter that adds up what every test file's mocks met and, at the end of the run, prints the
 * table, writes it as JSON and Markdown when asked, and fails the run under a threshold. Each test
 * file's mocks are collected by the setup file `identify-api-mock/vitest-coverage-setup`.
 *
 * @example
 * // vitest.config.ts
 * import { IdentifyApiMockCoverage } from 'identify-api-mock/vitest-coverage'
 * export default defineConfig({
 *   test: {
 *     setupFiles: ['identify-api-mock/vitest-coverage-setup'],
 *     reporters: ['default', new IdentifyApiMockCoverage({ thresholds: { identify: 100 } })],
 *   },
 * })
 */
import type { CoverageReport } from '../core/coverage.ts'
import {
  belowThresholdText,
  type CoverageOptions,
  coverageOptionsFrom,
  finishCoverage,
  mergeCoverage,
  SetupError,
} from './coverage-report.ts'

export type { CoverageOptions } from './coverage-report.ts'

/** The key of a test file's metadata under which its setup file leaves its mocks' coverage. */
export const coverageMetaKey = 'identifyApiMockCoverage'

/** What the reporter reads of vitest's test modules (vitest 4 and 5 alike). */
interface TestModuleLike {
  meta(): Record<string, unknown>
}

/**
 * The reporter: give it to `reporters` beside vitest's own, with the setup file in `setupFiles`.
 * Options as `CoverageOptions`, or from the `IDENTIFY_API_MOCK_COVERAGE_…` variables.
 */
export class IdentifyApiMockCoverage {
  readonly #given: CoverageOptions
  #options: CoverageOptions | undefined

  constructor(options: CoverageOptions = {}) {
    this.#given = options
  }

  /**
   * Before the run: the options and variables read, and a setting it cannot use (a variable's
   * bad value, a threshold of no group) said in one line on stderr, the run stopped with exit
   * code 1 before any test (thrown, vitest would print it in a box with its stack).
   */
  onInit(): void {
    try {
      this.#options = coverageOptionsFrom(this.#given)
    } catch (error) {
      if (!(error instanceof SetupError)) throw error
      process.stderr.write(`${error.message}\n`)
      process.exit(1)
    }
  }

  async onTestRunEnd(testModules: readonly TestModuleLike[]): Promise<void> {
    const reports = testModules.flatMap(
      (module) => (module.meta()[coverageMetaKey] as CoverageReport[] | undefined) ?? [],
    )
    const report = mergeCoverage(reports)
    if (!report) {
      process.stdout.write(
        'identify-api-mock: no test file created a mock (is identify-api-mock/vitest-coverage-setup in setupFiles?)\n',
      )
      return
    }
    const options = this.#options ?? coverageOptionsFrom(this.#given)
    const below = await finishCoverage(report, options)
    if (below.length === 0) return
    process.stderr.write(`${belowThresholdText(below)}\n`)
    process.exitCode = 1
  }
}
