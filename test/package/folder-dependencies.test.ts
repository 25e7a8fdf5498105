import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { packageSources } from '../support/package-sources.ts'

/**
 * Folders depend on each other in one direction (docs/decisions/folder-dependencies.md). Every
 * directory under `src`, `fixtures` and `handlers` is a unit of its own: `src/core` is not `src`,
 * `src/server/files` is not `src/server`.
 */
const repo = fileURLToPath(new URL('../..', import.meta.url))
const folders = ['src', 'fixtures', 'handlers']

/** The package's own names (`identify-api-mock/...`), mapped to sources as its `exports` say. */
const selfNames: Record<string, [string]> = Object.fromEntries(
  Object.entries(packageSources).map(([name, source]) => [name, [source]]),
)

function sourcesIn(folder: string): string[] {
  return readdirSync(join(repo, folder), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => join(folder, file))
}

/** The text of `file` without its comments (whose `@example`s import the package by name). */
function codeOf(file: string): string {
  return readFileSync(join(repo, file), 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '')
}

/**
 * Every import of a source of ours (static, dynamic, type-only or side effect, relative or by
 * the package's own name), as a repo path.
 */
function importsOf(file: string): string[] {
  const specifiers = codeOf(file).matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g)
  return [...specifiers].flatMap(([, specifier = '']) => {
    if (specifier.startsWith('.')) return [relative(repo, resolve(repo, dirname(file), specifier))]
    const [mapped] = selfNames[specifier] ?? []
    return mapped ? [relative(repo, resolve(repo, mapped))] : []
  })
}

/** directory → the directories it imports, with one import that shows each edge. */
function directoryGraph(): Map<string, Map<string, string>> {
  const graph = new Map<string, Map<string, string>>()
  for (const file of folders.flatMap(sourcesIn)) {
    const from = dirname(file)
    for (const target of importsOf(file)) {
      const to = dirname(target)
      if (from === to || !folders.includes(target.split('/')[0] ?? '')) continue
      const edges = graph.get(from) ?? new Map<string, string>()
      if (!edges.has(to)) edges.set(to, `${file} imports ${target}`)
      graph.set(from, edges)
    }
  }
  return graph
}

/** The cycles of `graph`, each as the imports that close it. */
function cyclesIn(graph: Map<string, Map<string, string>>): string[][] {
  const cycles: string[][] = []
  const visit = (unit: string, path: string[], via: string[]) => {
    for (const [next, example] of graph.get(unit) ?? []) {
      const start = path.indexOf(next)
      if (start !== -1) cycles.push([...via.slice(start), example])
      else visit(next, [...path, next], [...via, example])
    }
  }
  for (const unit of graph.keys()) visit(unit, [unit], [])
  return cycles
}

describe('folder dependencies', () => {
  it('reads the imports of every source, relative or by the package name', () => {
    const graph = directoryGraph()
    expect(graph.get('fixtures')?.has('src/model')).toBe(true)
    expect(graph.get('handlers')?.has('src/core')).toBe(true)
    expect(graph.get('src/root')?.has('handlers')).toBe(true)
    expect(graph.get('src/rules')?.has('src/base')).toBe(true)
    expect(importsOf('examples/jest/setup-server.spec.ts')).toEqual(
      expect.arrayContaining(['src/root/index.ts', 'src/matchers/matchers.ts']),
    )
  })

  it('has no directory that imports a directory importing it back, however far round', () => {
    expect(cyclesIn(directoryGraph())).toEqual([])
  })

  it('keeps no file at the root of src/: each one is in the folder of its idea', () => {
    const loose = readdirSync(join(repo, 'src'), { withFileTypes: true }).filter((e) => e.isFile())
    expect(loose.map((e) => e.name)).toEqual([])
  })

  it('finds a cycle where there is one', () => {
    const graph = new Map([
      ['src', new Map([['src/core', 'src/a.ts imports src/core/b.ts']])],
      ['src/core', new Map([['fixtures', 'src/core/b.ts imports fixtures/c.ts']])],
      ['fixtures', new Map([['src', 'fixtures/c.ts imports src/a.ts']])],
    ])
    expect(cyclesIn(graph)).toContainEqual([
      'src/a.ts imports src/core/b.ts',
      'src/core/b.ts imports fixtures/c.ts',
      'fixtures/c.ts imports src/a.ts',
    ])
  })
})
