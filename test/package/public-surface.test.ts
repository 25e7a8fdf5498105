import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import * as root from '../../src/root/index.ts'

/** The declaration of `name` among the root's re-exports, with the comment right above it. */
function docOf(name: string): string | undefined {
  const index = readFileSync(new URL('../../src/root/index.ts', import.meta.url), 'utf8')
  const modules = [...index.matchAll(/export\s*\{([^}]*)\}\s*from\s*'([^']+)'/g)]
  const [, , module] =
    modules.find(([, names = '']) => new RegExp(`\\b${name}\\b`).test(names)) ?? []
  if (!module) return undefined
  const source = readFileSync(new URL(module, new URL('../../src/root/', import.meta.url)), 'utf8')
  const declaration = new RegExp(`^export (?:const|class|function) ${name}\\b`, 'm').exec(source)
  if (!declaration) return undefined
  // The JSDoc block that ends right above the declaration, and no other comment.
  return /\/\*\*(?:(?!\*\/)[\s\S])*\*\/\s*$/.exec(source.slice(0, declaration.index))?.[0]
}

describe('the package root', () => {
  const names = Object.keys(root)

  it('exports at most 15 runtime values', () => {
    expect(names).toContain('createMockApi')
    expect(names.length).toBeLessThanOrEqual(15)
  })

  it('documents each of them with an @example', () => {
    const undocumented = names.filter((name) => !/^\s*\*\s*@example\b/m.test(docOf(name) ?? ''))
    expect(undocumented).toEqual([])
  })
})
