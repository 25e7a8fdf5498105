import { defineConfig } from 'vitest/config'

const [major = 0] = process.versions.node.split('.').map(Number)
if (major < 22) {
  throw new Error(
    `identify-api-mock needs Node 22 or newer; this is Node ${process.version}. ` +
      'Run the tests through npm (npm test), which uses the Node 24 from devDependencies.',
  )
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts'] },
  },
})
