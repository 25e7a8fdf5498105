import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

const source = (path: string) => fileURLToPath(new URL(path, import.meta.url))

const [major = 0] = process.versions.node.split('.').map(Number)
if (major < 22) {
  throw new Error(
    `identify-api-mock needs Node 22 or newer; this is Node ${process.version}. ` +
      'Run the tests through npm (npm test), which uses the Node 26 from devDependencies.',
  )
}

export default defineConfig({
  resolve: {
    // The examples import the package by name, as a consumer does; inside the repository that
    // name is its sources.
    alias: [
      { find: /^identify-api-mock$/, replacement: source('./src/root/index.ts') },
      { find: /^identify-api-mock\/advanced$/, replacement: source('./src/root/advanced.ts') },
      { find: /^identify-api-mock\/fixtures$/, replacement: source('./fixtures/index.ts') },
      { find: /^identify-api-mock\/handlers$/, replacement: source('./handlers/index.ts') },
      { find: /^identify-api-mock\/schemas$/, replacement: source('./src/schemas.ts') },
      { find: /^identify-api-mock\/server$/, replacement: source('./src/server/server.ts') },
      { find: /^identify-api-mock\/verify$/, replacement: source('./src/server/verify/index.ts') },
      { find: /^identify-api-mock\/matchers$/, replacement: source('./src/matchers/matchers.ts') },
      {
        find: /^identify-api-mock\/vitest$/,
        replacement: source('./src/matchers/vitest-setup.ts'),
      },
    ],
  },
  test: {
    include: ['test/**/*.test.ts', 'examples/**/*.test.ts'],
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts'] },
  },
})
