import { describe, expect, it } from 'vitest'
import { remembered } from '../../src/base/remembered.ts'

describe('remembered: a value per text, bounded', () => {
  /** `remembered` over a computation that counts its calls per text. */
  function counted(limit: number) {
    const calls = new Map<string, number>()
    const lengthOf = remembered((text: string) => {
      calls.set(text, (calls.get(text) ?? 0) + 1)
      return text.length
    }, limit)
    return { lengthOf, calls }
  }

  it('computes each text once, however the texts alternate, and gives each its own value', () => {
    const { lengthOf, calls } = counted(4)
    const asked = ['a', 'bb', 'a', 'a', 'ccc', 'bb', 'ccc', 'a']
    // New strings each time, as a request's header is.
    expect(asked.map((text) => lengthOf(`${text} `.trimEnd()))).toEqual([1, 2, 1, 1, 3, 2, 3, 1])
    expect(Object.fromEntries(calls)).toEqual({ a: 1, bb: 1, ccc: 1 })
  })

  it('keeps at most limit texts: past it they are forgotten all at once and computed again', () => {
    const { lengthOf, calls } = counted(2)
    for (const text of ['a', 'bb', 'ccc', 'a', 'bb']) lengthOf(text)
    // 'ccc' forgot 'a' and 'bb'; 'a' came back beside 'ccc'; 'bb' forgot both and came back.
    expect(Object.fromEntries(calls)).toEqual({ a: 2, bb: 2, ccc: 1 })
    expect(lengthOf('bb')).toBe(2)
    expect(calls.get('bb')).toBe(2)
  })
})
