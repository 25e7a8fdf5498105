import { readFileSync } from 'node:fs'

/**
 * jest 30, ESM, TypeScript through Babel: the configuration docs/guides/testing.md gives, plus the mapping a
 * consumer does not need: inside this repository the package's names are its sources, as
 * package.json's `exports` give them under the `@identify-api-mock/source` condition.
 */
const { name, exports } = JSON.parse(
  readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
)
const sources = Object.entries(exports).flatMap(([subpath, conditions]) => {
  const file = conditions['@identify-api-mock/source']
  return file
    ? [[`^${name}${subpath.slice(1)}$`, new URL(`../../${file}`, import.meta.url).pathname]]
    : []
})

/** @type {import('jest').Config} */
export default {
  testEnvironment: 'node',
  testMatch: ['<rootDir>/*.spec.ts'],
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '\\.ts$': ['babel-jest', { presets: ['@babel/preset-typescript'] }] },
  moduleNameMapper: Object.fromEntries(sources),
}
