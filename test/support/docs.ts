import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { packageSources } from './package-sources.ts'

/** The repository's root folder. */
export const repoRoot = fileURLToPath(new URL('../..', import.meta.url))

/** A Markdown file of the repository, by its path from the root (`README.md`, `docs/guides/server.md`). */
export function readDoc(file: string): string {
  return readFileSync(join(repoRoot, file), 'utf8')
}

/** The lines of `text` outside fenced code blocks, each with whether it opens or is inside one. */
function* linesOutsideCode(lines: readonly string[]) {
  let inCode = false
  for (const [index, line] of lines.entries()) {
    if (line.startsWith('```')) inCode = !inCode
    else if (!inCode) yield { index, line }
  }
}

/**
 * The section of `file` under `heading` (the whole line, `## Options`), up to the next heading of
 * its level or above; a file's `# Title` gives the whole file.
 */
export function docSection(file: string, heading: string): string {
  const lines = readDoc(file).split('\n')
  const level = heading.indexOf(' ')
  const start = [...linesOutsideCode(lines)].find(({ line }) => line === heading)?.index
  if (start === undefined) throw new Error(`${file} has no "${heading}"`)
  const next = [...linesOutsideCode(lines)].find(({ index, line }) => {
    const hashes = line.match(/^(#+) /)?.[1]?.length
    return index > start && hashes !== undefined && hashes <= level
  })
  return lines.slice(start, next?.index ?? lines.length).join('\n')
}

/** One fenced code block of a Markdown file, with the heading it stands under. */
export interface CodeBlock {
  file: string
  heading: string
  lang: string
  code: string
}

/** Every fenced code block of `file`, each with the nearest heading above it. */
export function allCodeBlocks(file: string): CodeBlock[] {
  const blocks: CodeBlock[] = []
  let heading = ''
  let open: { lang: string; lines: string[] } | undefined
  for (const line of readDoc(file).split('\n')) {
    if (open) {
      if (line.startsWith('```')) {
        blocks.push({ file, heading, lang: open.lang, code: `${open.lines.join('\n')}\n` })
        open = undefined
      } else open.lines.push(line)
    } else if (line.startsWith('```')) open = { lang: line.slice(3).trim(), lines: [] }
    else if (/^#+ /.test(line)) heading = line
  }
  return blocks
}

/** The code blocks of `lang` in the section of `file` under `heading`, nested sections included. */
export function codeBlocks(file: string, heading: string, lang: string): string[] {
  const section = docSection(file, heading)
  return [...section.matchAll(/^```(\S*)\n([\s\S]*?)^```/gm)]
    .filter((m) => m[1] === lang)
    .map((m) => m[2] ?? '')
}

/**
 * Runs a TypeScript block of the docs as a module, its imports resolved as the tests resolve the
 * package's names, and gives back the values it declares under `names`.
 */
export async function runBlock(code: string, names: readonly string[]) {
  const folder = mkdtempSync(join(tmpdir(), 'identify-api-mock-doc-'))
  const path = join(folder, 'block.ts')
  // Outside the repository, a name of the package would reach its built files: its sources here.
  const sourced = code.replace(/(from ')(identify-api-mock[^']*)'/g, (whole, from, name) => {
    const source = packageSources[name]
    return source ? `${from}${join(repoRoot, source)}'` : whole
  })
  writeFileSync(path, `${sourced}\nexport { ${names.join(', ')} }\n`)
  return (await import(/* @vite-ignore */ path)) as Record<string, unknown>
}

/** The sections whose blocks `consumer-package.test.ts` runs from the packed package. */
export const packedPackageBlocks = [
  { file: 'README.md', heading: '## Quick start: a vitest suite', lang: 'ts' },
  { file: 'docs/guides/testing.md', heading: '## Without msw: `api.fetch`', lang: 'ts' },
  { file: 'docs/guides/testing.md', heading: '## Without msw: `api.fetch`', lang: 'sh' },
  {
    file: 'docs/guides/testing.md',
    heading: '## Asserting what your code sent: `calls()` and matchers',
    lang: 'ts',
  },
  { file: 'docs/guides/testing.md', heading: '## jest', lang: 'sh' },
  { file: 'docs/guides/testing.md', heading: '## jest', lang: 'js' },
  { file: 'docs/guides/testing.md', heading: '## jest', lang: 'ts' },
] as const

/**
 * A block of a guide written from the code, between two markers that say what writes it: `block`
 * is it as the code makes it, `whole(current)` the guide with it written in, `write()` writes it
 * (what `npm run docs:<name>` runs; a script that writes several blocks names them
 * `<script>:<block>`, e.g. `failures:kinds`). A test compares the guide with `whole()`.
 *
 * @example generatedBlock('docs/guides/server.md', 'controls', 'src/control/control-table.ts', controlsTable)
 */
export function generatedBlock(file: string, name: string, source: string, render: () => string) {
  const path = join(repoRoot, file)
  const script = name.split(':')[0]
  const begin = `<!-- ${name}:begin: written by \`npm run docs:${script}\` from ${source} -->`
  const end = `<!-- ${name}:end -->`
  const block = () => [begin, '', render(), '', end].join('\n')
  const whole = (current = readFileSync(path, 'utf8')) => {
    const from = current.indexOf(begin)
    const to = current.indexOf(end)
    if (from === -1 || to === -1) throw new Error(`${file} has no ${name} markers`)
    return current.slice(0, from) + block() + current.slice(to + end.length)
  }
  return { path, block, whole, write: () => writeFileSync(path, whole()) }
}

/** The guide's vitest receiver file as a jest file: `useTenant` and the hooks from jest's entries. */
export function jestReceiverOf(vitestFile: string): string {
  return vitestFile.replace(
    "import { useTenant } from 'identify-api-mock/vitest-server'\nimport { afterAll, beforeAll, expect, it } from 'vitest'",
    "import { afterAll, beforeAll, expect, it } from '@jest/globals'\nimport { useTenant } from 'identify-api-mock/jest-server'",
  )
}
