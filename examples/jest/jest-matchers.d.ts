import type {
  CallExpectation,
  DeleteExpectation,
  IdentifyExpectation,
} from 'identify-api-mock/matchers'

declare module 'expect' {
  interface Matchers<R extends void | Promise<void>, T = unknown> {
    toHaveIdentified(request?: IdentifyExpectation, options?: CallExpectation): R
    toHaveDeleted(request?: DeleteExpectation, options?: CallExpectation): R
  }
}
