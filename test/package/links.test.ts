import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { repoRoot } from '../support/docs.ts'

/**
 * A clone of the repository is all a reader or a build has: no file may point outside it (the
 * specification folder beside it, a path that climbs out of it, an issue of a tracker it does not
 * have), and no Markdown link may name a file or a heading the repository does not have.
 */
const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
  cwd: repoRoot,
  encoding: 'utf8',
})
  .split('\n')
  .filter((file) => file && existsSync(join(repoRoot, file)))
const texts = new Map(
  files
    .map((file) => [file, readFileSync(join(repoRoot, file), 'utf8')] as const)
    .filter(([, text]) => !text.includes('\0')),
)

/** The folder beside the repository that only CI's script may use, spelled so this file does not. */
const sibling = ['..', 'shared'].join('/')

const leavesRepo = (from: string, target: string) =>
  relative(repoRoot, resolve(repoRoot, dirname(from), target)).startsWith('..')

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
const slug = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/ /g, '-')

/** The anchors of a Markdown file's headings (code blocks left out), numbered as GitHub does. */
function anchors(text: string): Set<string> {
  const found = new Set<string>()
  let inCode = false
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) inCode = !inCode
    const heading = !inCode && line.match(/^#+ (.*)$/)?.[1]
    if (!heading) continue
    const base = slug(heading)
    let anchor = base
    for (let n = 1; found.has(anchor); n++) anchor = `${base}-${n}`
    found.add(anchor)
  }
  return found
}

/** The targets of a Markdown file's inline links, code spans and blocks left out. */
function markdownLinks(text: string): string[] {
  const prose = text.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '')
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] ?? '')
}

describe('links', () => {
  it('finds the files it checks', () => {
    expect(texts.has('README.md')).toBe(true)
    expect(texts.has('docs/guides/behaviour.md')).toBe(true)
    expect(texts.size).toBeGreaterThan(100)
  })

  it(`has no file that names ${sibling}, but for .ci/run calling its tools`, () => {
    const naming = [...texts]
      .filter(([file, text]) => {
        const uses = text.split(sibling).length - 1
        const allowed = file === '.ci/run' ? text.split(`${sibling}/tools/`).length - 1 : 0
        return uses > allowed
      })
      .map(([file]) => file)
    expect(naming).toEqual([])
  })

  it('names no issue of a tracker the repository does not have', () => {
    const citing = [...texts].flatMap(([file, text]) =>
      [...text.matchAll(/\bissues? #?\d+/gi)].map((m) => `${file}: ${m[0]}`),
    )
    expect(citing).toEqual([])
  })

  it('has no relative path that climbs out of the repository', () => {
    const climbing = [...texts].flatMap(([file, text]) =>
      [...text.matchAll(/(?<![\w.])((?:\.\.\/)+|\.\.(?=['"`)]))[^\s'"`)]*/g)]
        .map((m) => m[0])
        .filter((target) => leavesRepo(file, target))
        .map((target) => `${file}: ${target}`),
    )
    expect(climbing).toEqual([])
  })

  it('has Markdown links only to files and headings the repository has', () => {
    const broken = [...texts]
      .filter(([file]) => file.endsWith('.md'))
      .flatMap(([file, text]) =>
        markdownLinks(text)
          .filter((target) => !/^[a-z]+:/.test(target))
          .filter((target) => {
            const [path = '', anchor] = target.split('#')
            const linked = path ? join(dirname(file), path) : file
            if (!existsSync(join(repoRoot, linked)) || leavesRepo(file, path || '.')) return true
            if (anchor === undefined) return false
            const other = texts.get(linked)
            return other === undefined || !anchors(other).has(anchor)
          })
          .map((target) => `${file}: ${target}`),
      )
    expect(broken).toEqual([])
  })
})
