import { runInNewContext } from 'node:vm'
import { describe, expect, it } from 'vitest'
import { type Collect, memoryReleaser, releaseAfterBytes } from '../../src/server/memory-release.ts'

/**
 * The standalone server gives the memory of dropped records back (issue: "after a reset, memory
 * comes back"): the rule that asks V8 for its memory-reducing collection. What it gives back is
 * measured by `npm run bench` (section 7), not here.
 */

/** A releaser over a state of `bytes`, counting the collections it asks for and how. */
function releaser(start: number) {
  const state = { bytes: start }
  const asked: Parameters<Collect>[0][] = []
  let obtained = 0
  const check = memoryReleaser(
    () => state.bytes,
    () => {
      obtained++
      return async (options) => void asked.push(options)
    },
  )
  return { state, asked, check, obtained: () => obtained }
}

describe('memoryReleaser', () => {
  it('asks for nothing while the state grows or falls less than the threshold', () => {
    const { state, asked, check, obtained } = releaser(1000)
    for (const bytes of [5000, 200 * 2 ** 20, 200 * 2 ** 20 - releaseAfterBytes + 1]) {
      state.bytes = bytes
      expect(check()).toBeUndefined()
    }
    expect(asked).toEqual([])
    expect(obtained()).toBe(0)
  })

  it('asks once for the memory-reducing collection when the state falls by the threshold from its highest', async () => {
    const { state, asked, check } = releaser(1000)
    state.bytes = 300 * 2 ** 20
    check()
    state.bytes = 2000
    await check()
    expect(asked).toEqual([{ type: 'major', execution: 'async', flavor: 'last-resort' }])
    // The highest starts again from there: the same small state asks for nothing more.
    expect(check()).toBeUndefined()
    expect(asked).toHaveLength(1)
  })

  it('counts from the state it starts with (one loaded from a state file)', () => {
    const { state, asked, check } = releaser(releaseAfterBytes + 10)
    state.bytes = 10
    check()
    expect(asked).toHaveLength(1)
  })

  it('obtains the collection once, and goes on without one where the runtime has none', () => {
    let obtained = 0
    const state = { bytes: 3 * releaseAfterBytes }
    const check = memoryReleaser(
      () => state.bytes,
      () => {
        obtained++
        return undefined
      },
    )
    for (const bytes of [2 * releaseAfterBytes, releaseAfterBytes, 0]) {
      state.bytes = bytes
      expect(check()).toBeUndefined()
    }
    expect(obtained).toBe(1)
  })

  it("runs V8's collection in a process started without --expose-gc, exposing gc nowhere", async () => {
    const state = { bytes: releaseAfterBytes }
    const check = memoryReleaser(() => state.bytes)
    state.bytes = 0
    const collected = check()
    expect(typeof collected?.then).toBe('function')
    await collected
    expect(runInNewContext('typeof gc')).toBe('undefined')
  })
})
