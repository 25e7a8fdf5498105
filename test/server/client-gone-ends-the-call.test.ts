import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { maxBodiesBytes } from '../../src/server/body-budget.ts'

/**
 * A call whose client has gone ends at once, on the server and in process: 1,000 delayed 1 MiB
 * calls whose clients leave keep no body (the memory the process's objects hold, its heap and
 * buffers, grows within the budget of bodies being read), no timer and no listener on the
 * callers' signals; a `hang` or a `slow` body met after the client left starts none; the journal
 * says the client left, with the status the call would have had, and the effect applied stays.
 * Counted in a process of its own (test/support/client-gone-resources.ts), with no test runner's
 * timers or buffers among them.
 */
describe('a call whose client has gone', () => {
  it('ends at once and leaves no body, timer or listener behind, on the server and in process', async () => {
    const script = fileURLToPath(new URL('../support/client-gone-resources.ts', import.meta.url))
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', script],
      { timeout: 170_000, maxBuffer: 16 * 1024 * 1024 },
    )
    const seen = JSON.parse(stdout) as {
      scenario: string
      before: { timers: number; sockets: number }
      after: { timers: number; sockets: number }
      heldGrowthMib?: number
      listeners?: number
      clientGone?: number
      statuses?: number[]
      created?: number
    }[]
    expect(seen.map((s) => s.scenario)).toEqual([
      'server: 1,000 delayed 1 MiB calls',
      'server: a hang met after the client left',
      'server: a slow body met after the client left',
      'api.fetch: 1,000 delayed 1 MiB calls (AbortError)',
      'api.fetch: a hang met after the signal aborted (AbortError)',
      'api.fetch: 1,000 slow bodies no one reads',
    ])
    const [delayed, hang, slow, inProcess, inProcessHang, unread] = seen
    const budgetMib = maxBodiesBytes / 1024 / 1024
    expect(delayed?.heldGrowthMib).toBeDefined()
    expect(inProcess?.heldGrowthMib).toBeDefined()
    for (const { scenario, before, after, heldGrowthMib, listeners } of seen) {
      expect(after, scenario).toEqual(before)
      if (listeners !== undefined) expect(listeners, scenario).toBe(0)
      if (heldGrowthMib !== undefined) expect(heldGrowthMib, scenario).toBeLessThan(budgetMib)
    }
    // Each entry says its client left, with the answer it would have had; its effect stays.
    expect(delayed).toMatchObject({ clientGone: 1000, statuses: [200], created: 1000 })
    expect(hang).toMatchObject({ clientGone: 100, statuses: [0], created: 0 })
    expect(slow).toMatchObject({ clientGone: 100, statuses: [200], created: 100 })
    expect(inProcess).toMatchObject({ clientGone: 1000, statuses: [200] })
    expect(inProcessHang).toMatchObject({ clientGone: 100, statuses: [0] })
    expect(unread?.listeners).toBe(0)
  }, 180_000)
})
