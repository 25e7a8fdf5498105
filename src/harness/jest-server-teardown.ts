/**
 * jest's `globalTeardown` for the shared server of `identify-api-mock/jest-server`.
 *
 * @example
 * export default { globalTeardown: 'identify-api-mock/jest-server-teardown' }
 */
export { stopSharedServer as default } from './jest-server.ts'
