import { afterEach, describe, expect, it, vi } from 'vitest'
import { rateLimitedLines } from '../../src/base/rate-limited-lines.ts'
import { MockCore } from '../../src/root/advanced.ts'
import { dispatchJson } from '../support/way-in.ts'

/**
 * Standard error gets at most one line a second of each kind, and a count of what was left out: a
 * flood of refused calls or failed commits wrote a line each (6,431 lines in 3 s).
 */

afterEach(() => {
  vi.useRealTimers()
  vi.restoreAllMocks()
})

describe('rateLimitedLines', () => {
  it('writes the first line of each kind in a second, then one line counting the rest', () => {
    vi.useFakeTimers()
    const written: string[] = []
    const warn = rateLimitedLines((line) => written.push(line))
    for (let i = 1; i <= 500; i++)
      warn(`a call was refused: it would take the state to ${i} characters`)
    warn('could not write a call to state.db (disk I/O error): it answers 500')
    warn(
      'could not write 3 calls committed together to state.db (disk I/O error): each answers 500',
    )
    expect(written).toEqual([
      'a call was refused: it would take the state to 1 characters',
      'could not write a call to state.db (disk I/O error): it answers 500',
      'could not write 3 calls committed together to state.db (disk I/O error): each answers 500',
    ])
    vi.advanceTimersByTime(1000)
    expect(written.slice(3)).toEqual([
      'a call was refused: it would take the state to 500 characters (and 499 more like it left out in the last second)',
    ])
    // A new second: the first of each kind is written again.
    warn('a call was refused: it would take the state to 501 characters')
    expect(written).toHaveLength(5)
    vi.advanceTimersByTime(1000)
    expect(written).toHaveLength(5)
  })

  it('counts the lines of kinds past the first 20 of a second together', () => {
    vi.useFakeTimers()
    const written: string[] = []
    const warn = rateLimitedLines((line) => written.push(line))
    for (const word of 'abcdefghijklmnopqrstuvwxyz') warn(`kind ${word}`)
    expect(written).toHaveLength(21)
    vi.advanceTimersByTime(1000)
    expect(written.at(-1)).toBe('kind z (and 5 more like it left out in the last second)')
  })
})

it('a flood of refused calls writes one line, and one more with the count, not a line each', async () => {
  const errors = vi.spyOn(console, 'error').mockImplementation(() => {})
  const core = new MockCore({
    seededOrganisations: 0,
    organisations: [{ orgId: 'acme', apiKeys: ['acme-key'], users: 0 }],
    maxUsers: 1,
  })
  const identify = (id: string) =>
    dispatchJson(core, 'POST', '/api/v1/users/identify', {
      key: 'acme-key',
      body: { id, orgId: 'acme' },
    })
  expect((await identify('first')).status).toBe(200)
  for (let i = 0; i < 200; i++) expect((await identify(`over-${i}`)).status).toBe(500)
  expect(errors).toHaveBeenCalledTimes(1)
  await vi.waitFor(() => expect(errors).toHaveBeenCalledTimes(2), { timeout: 5000 })
  expect(errors.mock.calls[1]?.[0]).toMatch(
    /^identify-api-mock: .*maxUsers.* \(and 199 more like it left out in the last second\)$/,
  )
})
