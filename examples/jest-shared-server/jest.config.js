/**
 * jest 30, ESM: one server for the run, a tenant per test file. A project with the package
 * installed names the entries by package (`identify-api-mock/jest-server`, and
 * `identify-api-mock/jest-server-teardown`); inside this repository they are its sources.
 */
const source = (path) => new URL(`../../${path}`, import.meta.url).pathname

/** @type {import('jest').Config} */
export default {
  testEnvironment: 'node',
  testMatch: ['<rootDir>/*.spec.ts'],
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '\\.ts$': ['babel-jest', { presets: ['@babel/preset-typescript'] }] },
  moduleNameMapper: {
    '^identify-api-mock/jest-server$': source('src/harness/jest-server.ts'),
    '^identify-api-mock/matchers$': source('src/matchers/matchers.ts'),
  },
  globalSetup: source('src/harness/jest-server.ts'),
  globalTeardown: source('src/harness/jest-server-teardown.ts'),
  globals: { identifyApiMockServer: { seed: 7 } },
}
