import { defaultServerConditions } from 'vite'
import { defineConfig } from 'vitest/config'

const [major = 0] = process.versions.node.split('.').map(Number)
if (major < 22) {
  throw new Error(
    `identify-api-mock needs Node 22 or newer; this is Node ${process.version}. ` +
      'Run the tests through npm (npm test), which uses the Node 26 from devDependencies.',
  )
}

/**
 * The examples and tests import the package by name, as a consumer does. Inside the repository
 * that name is its sources: package.json's `exports` give each entry's source file under this
 * condition, which tsconfig.json's `customConditions` reads too.
 */
const sources = '@identify-api-mock/source'

export default defineConfig({
  ssr: { resolve: { conditions: [sources, ...defaultServerConditions] } },
  test: {
    include: ['test/**/*.test.ts', 'examples/**/*.test.ts'],
    // A polled condition (a page in a real browser, a server's journal) may take more than the
    // default second on a busy machine: the condition is the same, it is given the time.
    expect: { poll: { timeout: 10_000 } },
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts'] },
  },
})
