import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { repoRoot } from './processes.ts'

/**
 * The repository's sources as they were at `commit`, in a folder of their own that shares this
 * checkout's `node_modules`: to run an earlier server beside this one. `unavailable` says why not
 * (no git, or a copy of the repository without its history).
 *
 * @example
 * const then = checkoutOf('adbe4f9')
 * if ('folder' in then) await startMockServer(options, then.folder)
 */
export function checkoutOf(
  commit: string,
): { folder: string; remove(): void } | { unavailable: string } {
  const folder = mkdtempSync(join(tmpdir(), `bench-${commit}-`))
  const remove = () => rmSync(folder, { recursive: true, force: true })
  try {
    const archive = execFileSync('git', ['-C', repoRoot, 'archive', commit], {
      maxBuffer: 1 << 30,
      stdio: ['ignore', 'pipe', 'ignore'],
    })
    execFileSync('tar', ['-x', '-C', folder], { input: archive })
    symlinkSync(join(repoRoot, 'node_modules'), join(folder, 'node_modules'))
    return { folder, remove }
  } catch {
    remove()
    return {
      unavailable: `commit ${commit} is not in this copy of the repository (git archive failed)`,
    }
  }
}
