/**
 * A vitest setup file that hands the contract coverage of every mock a test file creates
 * (`createMockApi()`) to the reporter of `identify-api-mock/vitest-coverage`, which adds up every
 * file's at the end of the run. Through the file's task metadata: the workers and the reporter
 * share nothing else.
 *
 * @example
 * // vitest.config.ts
 * import { IdentifyApiMockCoverage } from 'identify-api-mock/vitest-coverage'
 * export default defineConfig({
 *   test: {
 *     setupFiles: ['identify-api-mock/vitest-coverage-setup'],
 *     reporters: ['default', new IdentifyApiMockCoverage()],
 *   },
 * })
 */
import { createRequire } from 'node:module'
import { afterAll } from 'vitest'
import { type CoverageSource, coverageCollector } from '../root/coverage-collector.ts'
import { coverageMetaKey } from './vitest-coverage.ts'

// From the setup on, before the test file's own module runs: its mocks are made at its top level.
const sources: CoverageSource[] = []
coverageCollector.start(sources)

/** Leaves the coverage of the file's mocks in its metadata, for the reporter. */
function handOver(file: { meta: Record<string, unknown> }): void {
  const reports = sources.map((report) => report())
  sources.length = 0
  file.meta[coverageMetaKey] = reports
}

// vitest 5 hands an `afterAll` listener its fixtures first (to be destructured: it reads them from
// the listener's text), then the file's suite; vitest 4, the suite alone.
const major = Number(
  (createRequire(import.meta.url)('vitest/package.json') as { version: string }).version.split(
    '.',
  )[0],
)
if (major >= 5) {
  // biome-ignore lint/correctness/noEmptyPattern: vitest 5 asks for no fixture this way.
  afterAll(({}, file) => handOver(file as unknown as { meta: Record<string, unknown> }))
} else {
  afterAll(((file: { meta: Record<string, unknown> }) => handOver(file)) as never)
}
