import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from '../../src/server/server.ts'
import { allCodeBlocks, repoRoot } from '../support/docs.ts'

/**
 * docs/guides/time.md as a reader follows it: its vitest recipe is the file `examples/time` runs,
 * its pytest recipe is the Python example's own code, and its curl lines work as written.
 */
const guide = 'docs/guides/time.md'
const blocks = allCodeBlocks(guide)
const read = (path: string) => readFileSync(`${repoRoot}/${path}`, 'utf8')

describe(guide, () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer({ port: 0 })
  })
  afterAll(() => server.close())

  it('has a code block in a language each of its tests checks, and no other', () => {
    expect(blocks.map((block) => block.lang)).toEqual(['ts', 'python', 'python', 'sh'])
  })

  it('shows the vitest recipe exactly as examples/time runs it', () => {
    expect(blocks[0]?.code).toBe(read('examples/time/time.test.ts'))
  })

  it("shows the pytest recipe as the Python example's tenant and test have it", () => {
    const python = `${read('examples/python-backend/conftest.py')}\n${read('examples/python-backend/test_identify_client.py')}`
    for (const block of blocks.filter((b) => b.lang === 'python')) {
      expect(python).toContain(block.code.trimEnd())
    }
  })

  it('has curl lines that answer as the guide says against a server', async () => {
    const lines = (blocks[3]?.code ?? '')
      .split('\n')
      .filter((line) => line.startsWith('curl '))
      .map((line) => line.replaceAll('http://127.0.0.1:4010', server.url))
    const answers: unknown[] = []
    for (const line of lines) {
      const { stdout } = await promisify(execFile)('sh', ['-c', line])
      answers.push(JSON.parse(stdout))
    }
    expect(answers).toEqual([
      { now: '2030-01-01T09:00:00.000Z', mode: 'frozen' },
      { now: '2030-01-01T09:05:01.000Z', mode: 'frozen' },
      { now: expect.any(String), mode: 'real' },
    ])
    const text = read(guide)
    for (const answer of answers.slice(0, 2)) expect(text).toContain(JSON.stringify(answer))
  })
})
