import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

/**
 * Folders depend on each other in one direction (docs/decisions/folder-dependencies.md): the core
 * (`src`) depends on nothing of ours; `fixtures` builds data for it; `handlers` adapts it to msw;
 * the composition root (the package's entry points and the server) ties them together, and
 * nothing imports it back.
 */
const repo = fileURLToPath(new URL('../..', import.meta.url))
const compositionRoot = ['src/index.ts', 'src/advanced.ts', 'src/create-mock-api.ts', 'src/server/']
const folders = ['src', 'fixtures', 'handlers']

function sourcesIn(folder: string): string[] {
  return readdirSync(join(repo, folder), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => join(folder, file))
}

function unitOf(file: string): string {
  if (compositionRoot.some((root) => file === root || file.startsWith(root)))
    return 'composition root'
  return file.split('/')[0] ?? file
}

/** Every relative import of a source (static, dynamic, type-only or side effect), as a repo path. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(repo, file), 'utf8')
  const specifiers = text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)'(\.{1,2}\/[^']+)'/g)
  return [...specifiers].map(([, specifier = '']) =>
    relative(repo, resolve(repo, dirname(file), specifier)),
  )
}

/** unit → the units it imports, with one import that shows each edge. */
function unitGraph(): Map<string, Map<string, string>> {
  const graph = new Map<string, Map<string, string>>()
  for (const file of folders.flatMap(sourcesIn)) {
    const from = unitOf(file)
    for (const target of importsOf(file)) {
      const to = unitOf(target)
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
  it('reads the imports of every source', () => {
    const graph = unitGraph()
    expect(graph.get('fixtures')?.has('src')).toBe(true)
    expect(graph.get('handlers')?.has('src')).toBe(true)
    expect(graph.get('composition root')?.has('handlers')).toBe(true)
  })

  it('has no folder that imports a folder importing it back', () => {
    expect(cyclesIn(unitGraph())).toEqual([])
  })

  it('finds a cycle where there is one', () => {
    const graph = new Map([
      ['src', new Map([['fixtures', 'src/a.ts imports fixtures/b.ts']])],
      ['fixtures', new Map([['src', 'fixtures/b.ts imports src/a.ts']])],
    ])
    expect(cyclesIn(graph)).toContainEqual([
      'src/a.ts imports fixtures/b.ts',
      'fixtures/b.ts imports src/a.ts',
    ])
  })
})
