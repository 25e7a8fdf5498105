import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { missingSetup } from '../../src/harness/shared-server.ts'
import { jestReceiverOf } from '../support/docs.ts'

/** The guide's examples are the files `examples/many-tests` runs, as they are. */
const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8')
const guide = read('docs/guides/many-tests.md')
const blocks = (lang: string) =>
  [...guide.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((m) => m[1])

describe('docs/guides/many-tests.md', () => {
  it('shows the example data file and the shared-server test file exactly as the examples run them', () => {
    expect(blocks('json')).toEqual([read('examples/many-tests/data.json')])
    const [config = '', testFile, perCase, perFailureCase, jestFile, receiverFile = ''] =
      blocks('ts')
    expect(testFile).toEqual(read('examples/shared-server/identify.spec.ts'))
    expect(perCase).toEqual(read('examples/shared-server/answer-shapes.spec.ts'))
    expect(perFailureCase).toEqual(read('examples/shared-server/failure-cases.spec.ts'))
    expect(jestFile).toEqual(read('examples/jest-shared-server/tenant-1.spec.ts'))
    expect(receiverFile).toEqual(read('examples/shared-server/webhooks.spec.ts'))
    // The jest receiver file is the same, its runner's imports aside, as the guide says.
    expect(read('examples/jest-shared-server/webhooks.spec.ts')).toEqual(
      jestReceiverOf(receiverFile),
    )
    // The example's config names the entries by their sources; a project names them by package.
    expect(config).toContain("globalSetup: ['identify-api-mock/vitest-server']")
    expect(config).toContain("setupFiles: ['identify-api-mock/vitest']")
    expect(config).toContain('provide: { identifyApiMockServer: { seed: 7 } }')
    expect(read('examples/shared-server/vitest.config.ts')).toContain(
      'provide: { identifyApiMockServer: { seed: 7 } }',
    )
  })

  it('gives the jest configuration examples/jest-shared-server runs, which adds only where the sources are', async () => {
    const [block = ''] = blocks('js')
    const folder = mkdtempSync(join(tmpdir(), 'identify-api-mock-jest-config-'))
    writeFileSync(join(folder, 'jest.config.mjs'), block)
    const { default: documented } = await import(join(folder, 'jest.config.mjs'))
    const examplePath = new URL('../../examples/jest-shared-server/jest.config.js', import.meta.url)
    const { default: example } = await import(examplePath.href)
    const { testMatch, moduleNameMapper, globalSetup, globalTeardown, ...rest } = example
    const { globalSetup: setup, globalTeardown: teardown, ...documentedRest } = documented
    expect(documentedRest).toEqual(rest)
    expect([setup, teardown]).toEqual([
      'identify-api-mock/jest-server',
      'identify-api-mock/jest-server-teardown',
    ])
    expect([globalSetup, globalTeardown]).toEqual([
      expect.stringMatching(/\/src\/harness\/jest-server\.ts$/),
      expect.stringMatching(/\/src\/harness\/jest-server-teardown\.ts$/),
    ])
  })

  it('shows the line a test file without the setup fails with', () => {
    const error = missingSetup('vitest', "globalSetup: ['identify-api-mock/vitest-server']")
    expect(blocks('text')).toContain(`Error: ${error.message}\n`)
  })

  it('shows refusal lines in the form serve prints them', () => {
    const [lines = ''] = blocks('text')
    for (const line of lines.trim().split('\n')) {
      expect(line.trim()).toMatch(
        /^identify-api-mock: data\.json: users\[\d+\]\.[a-zA-Z]+(\[\d+\])?: /,
      )
    }
  })
})
