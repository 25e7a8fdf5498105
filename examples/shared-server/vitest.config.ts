import { defaultServerConditions } from 'vite'
import { defineConfig } from 'vitest/config'

// A project with the package installed names the entries `identify-api-mock/vitest-server` and
// `identify-api-mock/vitest`; inside this repository they are its sources.
const entry = (path: string) => new URL(`../../${path}`, import.meta.url).pathname

export default defineConfig({
  ssr: { resolve: { conditions: ['@identify-api-mock/source', ...defaultServerConditions] } },
  test: {
    root: import.meta.dirname,
    include: ['*.spec.ts'],
    globalSetup: [entry('src/harness/vitest-server.ts')],
    setupFiles: [entry('src/matchers/vitest-setup.ts')],
    provide: { identifyApiMockServer: { seed: 7 } },
  },
})
