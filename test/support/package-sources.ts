import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const repo = fileURLToPath(new URL('../..', import.meta.url))

/**
 * The package's own names (`identify-api-mock`, `identify-api-mock/verify`, …), each with its
 * source file from the repository's root, as package.json's `exports` give them under the
 * `@identify-api-mock/source` condition.
 *
 * @example packageSources['identify-api-mock/verify'] // 'src/verify/node/index.ts'
 */
export const packageSources: Record<string, string> = Object.fromEntries(
  Object.entries(
    JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')).exports as Record<
      string,
      Record<string, string> | string
    >,
  ).flatMap(([subpath, conditions]) => {
    const source = typeof conditions === 'object' && conditions['@identify-api-mock/source']
    return source ? [[join('identify-api-mock', subpath), join(source)]] : []
  }),
)
