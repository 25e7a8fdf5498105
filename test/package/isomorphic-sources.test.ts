import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'

const root = fileURLToPath(new URL('../..', import.meta.url))

function sourcesUnder(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => join(dir, file))
}

/**
 * The folders that are Node's alone: the standalone server, the CLI of `verify`, the test runners'
 * shared-server harnesses (they start that server) and the Testcontainers module.
 */
const nodeOnly = ['src/server', 'src/verify/node', 'src/harness', 'src/testcontainers']

it('keeps src/ (but the Node-only src/server and src/verify/node), handlers/ and fixtures/ to web-standard APIs, for browser workers', () => {
  const files = ['src', 'handlers', 'fixtures']
    .flatMap(sourcesUnder)
    .filter((file) => !nodeOnly.some((dir) => relative(dir, file).match(/^[^.]/)))
  expect(files.length).toBeGreaterThan(20)
  const offenders = files.filter((file) => {
    const text = readFileSync(join(root, file), 'utf8')
    return (
      /from ['"](node:|fs|path|http|crypto|buffer)['"/]|\bBuffer\b|(?<![\w-])process\./.test(
        text,
      ) || /from ['"]\.\.?\/(?:.*\/)?server\//.test(text)
    )
  })
  expect(offenders).toEqual([])
})
