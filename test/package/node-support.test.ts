import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { minimumNode, unsupportedNode } from '../../src/base/node-support.ts'

const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'))

describe('the Node versions the package runs on', () => {
  it('are the ones package.json promises in engines', () => {
    expect(manifest.engines.node).toBe(`>=${minimumNode}`)
  })

  it('refuses a Node older than 22.12 by name, and takes 22.12 and every later one', () => {
    expect(unsupportedNode('20.20.2')).toBe('needs Node 22.12 or newer; this is Node 20.20.2')
    expect(unsupportedNode('22.11.9')).toBe('needs Node 22.12 or newer; this is Node 22.11.9')
    expect(unsupportedNode('21.99.0')).toMatch(/^needs Node 22\.12 or newer/)
    for (const version of ['22.12.0', '22.13.1', '23.0.0', '24.21.0', '26.10.0', '100.0.0']) {
      expect(unsupportedNode(version)).toBeUndefined()
    }
  })
})
