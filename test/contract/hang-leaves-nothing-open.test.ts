import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

/**
 * A hang ends when its client gives up and at its bound, and leaves nothing open either way: no
 * socket and no timer (counted with Node's own list of what keeps it running, in a process of its
 * own, test/support/hang-resources.ts, so that no test runner's timer is among them), no abort
 * listener on the caller's signal; and the process, its server closed, ends by itself.
 */
describe('a hang', () => {
  it('holds one timer while it lasts, and leaves no timer, socket or listener, on every way in', async () => {
    const script = fileURLToPath(new URL('../support/hang-resources.ts', import.meta.url))
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', script], {
      timeout: 60_000,
    })
    const seen = JSON.parse(stdout) as {
      scenario: string
      before: { timers: number; sockets: number }
      during: { timers: number; sockets: number }
      after: { timers: number; sockets: number }
      listeners?: number
    }[]
    expect(seen.map((s) => s.scenario)).toEqual([
      'server: the client closes',
      'server: at its bound',
      'api.fetch: the signal aborts (AbortError)',
      'api.fetch: at its bound (TypeError)',
      'the MSW handlers: the signal aborts (AbortError)',
      'the MSW handlers: at its bound (TypeError)',
    ])
    for (const { scenario, before, during, after, listeners } of seen) {
      expect(during.timers, scenario).toBe(before.timers + 1)
      expect(after, scenario).toEqual(before)
      if (scenario.startsWith('api.fetch')) expect(listeners, scenario).toBe(0)
    }
    // The server held the client's socket and its own while it hung.
    expect(seen[0]?.during.sockets).toBe((seen[0]?.before.sockets ?? 0) + 2)
  }, 90_000)
})
