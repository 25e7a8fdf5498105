import { cpSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { basename, dirname, join } from 'node:path'

/** The name of the Dockerfile {@link writePackageContext} writes, beside the package's files. */
export const contextDockerfile = 'identify-api-mock.Dockerfile'

/**
 * Fills `context` with a build context of the installed package: its files (not `node_modules`,
 * nor dotfiles), and a Dockerfile that is the package's own run stage, read from its `Dockerfile`
 * from the last `FROM` on, after a `build` stage that is the package itself (what the repository's
 * build stage makes is what the package holds, at the same paths under `/src`).
 *
 * @example writePackageContext(mkdtempSync(join(tmpdir(), 'image-')))
 */
export function writePackageContext(context: string): void {
  const root = dirname(createRequire(import.meta.url).resolve('identify-api-mock/package.json'))
  const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8')
  const runStage = dockerfile.slice(dockerfile.search(/^FROM (?![\s\S]*^FROM )/m))
  cpSync(root, context, {
    recursive: true,
    filter: (source) => source === root || !/^(\.|node_modules$)/.test(basename(source)),
  })
  writeFileSync(
    join(context, contextDockerfile),
    `FROM scratch AS build\nCOPY . /src/\n\n${runStage}`,
  )
}
