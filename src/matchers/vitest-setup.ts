/**
 * The vitest setup entry: extends `expect` with the mock's matchers and declares their types.
 *
 * @example
 * // vitest.config.ts
 * export default defineConfig({ test: { setupFiles: ['identify-api-mock/vitest'] } })
 */
import { expect } from 'vitest'
import {
  type CallExpectation,
  type DeleteExpectation,
  type IdentifyExpectation,
  matchers,
} from './matchers.ts'

expect.extend(matchers)

// vitest 4 and 5 declare `Matchers` with different type parameters, so no one augmentation of it
// compiles against both; each builds `expect(value)` from chai's `Assertion` methods, which both
// also take from here.
declare global {
  namespace Chai {
    interface Assertion {
      /**
       * The mock received identify calls matching `request` (a deep partial of the body). Awaited
       * for a client or a tenant.
       */
      toHaveIdentified(
        request?: IdentifyExpectation,
        options?: CallExpectation,
      ): void | Promise<void>
      /**
       * The mock received delete calls matching `request` (`orgId`, `id`, or both). Awaited for a
       * client or a tenant.
       */
      toHaveDeleted(request?: DeleteExpectation, options?: CallExpectation): void | Promise<void>
    }
  }
}
