import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll } from 'vitest'
import { type CliProcess, startCli } from './cli-process.ts'

/**
 * `serve --state-file` for a test file: one organisation `acme` with API key `key` (and the
 * flags `more` adds), its state files in a folder of their own (removed at the end, with every server still
 * running killed). `serve(path)` starts a server on the file, `more` flags added; `kill(server)` ends it with SIGKILL,
 * as a crash does.
 *
 * @example
 * const { file, serve, kill } = stateFileServers('clocks', 'clock-state-key')
 * const first = await serve(file('clocks.db')); await kill(first); const second = await serve(file('clocks.db'))
 */
export function stateFileServers(name: string, key: string) {
  let dir = ''
  const running = new Set<CliProcess>()
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), `state-file-${name}-`))
  })
  afterAll(() => {
    for (const cli of running) cli.child.kill('SIGKILL')
    rmSync(dir, { recursive: true, force: true })
  })
  return {
    file: (base: string) => join(dir, base),
    serve: async (path: string, more: string[] = []) => {
      const started = await startCli([
        ...['--state-file', path, '--orgs', '0', '--org', 'acme', '--api-key', key],
        ...more,
      ])
      running.add(started.cli)
      return started
    },
    kill: async ({ cli }: { cli: CliProcess }) => {
      cli.child.kill('SIGKILL')
      await cli.exit
      running.delete(cli)
    },
  }
}
