import type { CoverageReport } from '../core/coverage.ts'

/** A mock's contract coverage, read when asked (at the end of a test file). */
export type CoverageSource = () => CoverageReport

/**
 * Where `createMockApi` puts each mock's coverage while a vitest setup file collects them (see
 * `identify-api-mock/vitest-coverage-setup`): on `globalThis`, so that a copy of the package
 * loaded twice still finds the list. Unset, nothing is kept: a mock is never held past its use.
 */
const key = Symbol.for('identify-api-mock.coverage-sources')

type Holder = { [key]?: CoverageSource[] }

/**
 * What collects the mocks' coverage: `start` with a list that `createMockApi` then adds each new
 * mock's to, `add` (what it calls).
 *
 * @example coverageCollector.start(sources) // every createMockApi() from now on is in `sources`
 */
export const coverageCollector = {
  start(into: CoverageSource[]): void {
    ;(globalThis as Holder)[key] = into
  },
  add(source: CoverageSource): void {
    ;(globalThis as Holder)[key]?.push(source)
  },
}
