import { execFileSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { benchKey, identifyUpdates, load } from './http-load.ts'
import { startMockServer } from './processes.ts'

/**
 * The instructions a standalone server runs for one identify (update), counted by valgrind's
 * callgrind over `calls` calls after `warmUp` more: the server of `checkout` (this one without).
 * What a change costs the CPU, to a fraction of a percent on a machine whose timed runs swing by a
 * third; valgrind runs the server about fifty times slower, so each count takes a minute or two.
 * `unavailable` says why not (no valgrind).
 *
 * @example
 * const [ours, theirs] = await Promise.all([instructionsPerCall(options), instructionsPerCall(options, folder)])
 */
export async function instructionsPerCall(
  options: object,
  checkout?: string,
  { calls = 4000, warmUp = 3000 } = {},
): Promise<number | { unavailable: string }> {
  try {
    execFileSync('callgrind_control', ['--version'], { stdio: 'ignore' })
  } catch {
    return { unavailable: 'valgrind is not installed (its callgrind counts instructions)' }
  }
  const folder = mkdtempSync(join(tmpdir(), 'callgrind-'))
  const out = join(folder, 'counts')
  const server = await startMockServer(options, checkout, [
    'valgrind',
    '--tool=callgrind',
    // V8 writes the code it runs: valgrind must check for code changed in memory.
    '--smc-check=all-non-file',
    `--callgrind-out-file=${out}`,
    `--log-file=${join(folder, 'valgrind.log')}`,
  ])
  try {
    const target = identifyUpdates(server.url, benchKey, 'X', 'bench-user')
    const send = async (amount: number) => {
      const result = await load({ ...target, connections: 8, amount })
      if (result.failures > 0) throw new Error(`${server.url}: ${result.failures} failed answers`)
    }
    await send(warmUp)
    const control = (option: string) =>
      execFileSync('callgrind_control', [option, String(server.pid)], { stdio: 'ignore' })
    control('--zero')
    await send(calls)
    control('--dump')
    // The dump after the zero counts the measured calls only, every thread of the process.
    const dump = readdirSync(folder).find((name) => name.startsWith('counts.'))
    const text = dump ? readFileSync(join(folder, dump), 'utf8') : ''
    const total = Number(text.match(/^summary: (\d+)$/m)?.[1])
    return total / calls
  } finally {
    await server.stop()
    rmSync(folder, { recursive: true, force: true })
  }
}
