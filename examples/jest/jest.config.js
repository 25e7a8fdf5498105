import { readFileSync } from 'node:fs'

/**
 * jest 30, ESM, TypeScript through Babel: the configuration docs/guides/testing.md gives, plus the
 * mapping a consumer does not need: inside this repository the package's names are its sources, as
 * tsconfig.json's `paths` say.
 */
const { compilerOptions } = JSON.parse(
  readFileSync(new URL('../../tsconfig.json', import.meta.url), 'utf8'),
)
const sources = Object.entries(compilerOptions.paths).map(([name, [file]]) => [
  `^${name}$`,
  new URL(`../../${file}`, import.meta.url).pathname,
])

/** @type {import('jest').Config} */
export default {
  testEnvironment: 'node',
  testMatch: ['<rootDir>/*.spec.ts'],
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '\\.ts$': ['babel-jest', { presets: ['@babel/preset-typescript'] }] },
  moduleNameMapper: Object.fromEntries(sources),
}
