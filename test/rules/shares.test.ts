import { describe, expect, it } from 'vitest'
import {
  controlSource,
  noSource,
  organisationSource,
  Shares,
  shareOf,
} from '../../src/base/shares.ts'

describe('Shares', () => {
  const a = organisationSource('a')
  const b = organisationSource('b')

  it('gives each source at most its share of the bound, and the bound at most in all', () => {
    const shares = new Shares(100, 0.25)
    expect(shares.share).toBe(25)
    expect(shares.take(a, 25)).toBe(true)
    expect(shares.take(a, 1)).toBe(false)
    expect(shares.heldBy(a)).toBe(25)
    // Another source within its share is never refused because of the first.
    expect(shares.take(b, 25)).toBe(true)
    shares.give(a, 5)
    expect(shares.take(a, 5)).toBe(true)
    expect(shares.total).toBe(50)
    // Four sources each holding their share fill the bound: a fifth is refused.
    expect(shares.take('none', 25)).toBe(true)
    expect(shares.take('control', 25)).toBe(true)
    expect(shares.take(organisationSource('e'), 1)).toBe(false)
  })

  it('names the source holding the most past its share as the one that gives way', () => {
    const shares = new Shares(40, 0.25)
    shares.add(a, 10)
    shares.add(b, 3)
    // Within its share: nobody gives way.
    expect(shares.overShare()).toBeUndefined()
    shares.add(b, 20)
    shares.add(a, 2)
    expect(shares.overShare()).toBe(b)
    shares.give(b, 20)
    expect(shares.overShare()).toBe(a)
    shares.clear()
    expect([shares.total, shares.heldBy(a), shares.overShare()]).toEqual([0, 0, undefined])
  })

  it('keeps at least one for every source, whatever the fraction', () => {
    expect(shareOf(3, 0.25)).toBe(1)
    expect(shareOf(1000, 0.25)).toBe(250)
    // No orgId is ever taken for the two sources that are no organisation.
    expect(organisationSource('none')).not.toBe(noSource)
    expect(organisationSource('control')).not.toBe(controlSource)
  })
})
