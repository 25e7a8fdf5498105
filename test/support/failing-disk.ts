import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const source = fileURLToPath(new URL('./fail-sync.c', import.meta.url))

/** A disk whose syncs fail on demand, for a process started with {@link FailingDisk.env}. */
export interface FailingDisk {
  /** The environment that loads it into a process, failing syncs of files whose path has `match`. */
  env(match: string): Record<string, string>
  /** Makes the next `count` syncs fail (0: none). */
  failNextSyncs(count: number): void
}

/**
 * Builds `fail-sync.c` into `dir` with the machine's C compiler and returns the disk it gives;
 * `undefined` where there is no compiler or the platform has no LD_PRELOAD (not Linux).
 */
export function buildFailingDisk(dir: string): FailingDisk | undefined {
  if (process.platform !== 'linux') return undefined
  const library = join(dir, 'fail-sync.so')
  const built = spawnSync('cc', ['-shared', '-fPIC', '-O2', '-o', library, source, '-ldl'])
  if (built.error || built.status !== 0) return undefined
  const flag = join(dir, 'fail-sync-flag')
  writeFileSync(flag, '0')
  return {
    env: (match) => ({ LD_PRELOAD: library, FAIL_SYNC_FLAG: flag, FAIL_SYNC_MATCH: match }),
    failNextSyncs: (count) => writeFileSync(flag, String(count)),
  }
}
