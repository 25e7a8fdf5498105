import { describe, expect, it } from 'vitest'
import type { MockState } from '../../src/root/index.ts'
import {
  type VerifyReport,
  verifyDeployment,
  verifyReportSchema,
} from '../../src/verify/node/index.ts'
import type { StartWayIn } from './way-in.ts'

/** The rows every run skips, because checking them would write other data. */
export const alwaysSkipped = [
  'identify and delete: 500 Internal server error',
  'userGroups naming a group the organisation does not have',
]

/** The names of the rows with `verdict`. */
export const rowsWith = (report: VerifyReport, verdict: 'same' | 'differs' | 'skipped') =>
  report.checks.filter((check) => check.verdict === verdict).map((check) => check.name)

/** A run against the mock itself: every row the same, but those skipped by design. */
export function expectAgreement(report: VerifyReport) {
  expect(rowsWith(report, 'skipped')).toEqual(alwaysSkipped)
  expect(rowsWith(report, 'differs')).toEqual([])
  expect(report.checks.filter((c) => c.kind === 'contract' && c.verdict === 'differs')).toEqual([])
  expect(report.ok).toBe(true)
  expect(report.throwawayUser.deleted).toBe(true)
}

/** The users whose id a run made up. */
export const throwawayUsersIn = (state: MockState) =>
  state.users.filter((user) => user.id.startsWith('verify-'))

/**
 * The contract suite that `verify` runs against a deployment, run against the mock itself
 * through both ways in: the mock must pass its own contract and its own decisions, write only
 * its throwaway user, and leave the state as it found it.
 */
export function describeVerifyAgainst(name: string, start: StartWayIn) {
  describe(`verify against ${name}`, () => {
    const run = async (options: { groups?: string[]; strict?: boolean } = {}) => {
      const target = await start()
      const [org] = target.credentials
      const before = await target.state()
      const report = await verifyDeployment({
        baseUrl: target.url(''),
        apiKey: org?.apiKeys[0] ?? '',
        orgId: org?.orgId ?? '',
        ...options,
      })
      const after = await target.state()
      const journal = await target.requests()
      await target.close()
      return { report, before, after, journal }
    }

    it('agrees on every row, writes only the throwaway user and deletes it', async () => {
      const { report, before, after, journal } = await run({ groups: ['grp-1', 'grp-2'] })
      expect(verifyReportSchema.parse(report)).toEqual(report)
      expectAgreement(report)
      expect(rowsWith(report, 'same')).toContain(
        'userGroups replaced when sent, duplicates stored once',
      )
      expect(after).toEqual(before)
      expect(throwawayUsersIn(after)).toEqual([])
      expect(journal).toHaveLength(15)
      const userPaths = journal.filter((entry) => entry.path.startsWith('/api/v1/users/org'))
      for (const entry of userPaths) {
        expect(entry.path).toMatch(/^\/api\/v1\/users\/[^/]+\/verify-(absent-)?[0-9a-f]{32}$/)
      }
    })

    it('passes with --strict: the mock keeps its own decisions', async () => {
      const { report } = await run({ groups: ['grp-1'], strict: true })
      expect(report.ok).toBe(true)
      expect(rowsWith(report, 'differs')).toEqual([])
    })

    it('skips the userGroups row without --groups, sending only []', async () => {
      const { report, journal } = await run()
      const row = report.checks.find(
        (c) => c.name === 'userGroups replaced when sent, duplicates stored once',
      )
      expect(row).toMatchObject({ verdict: 'skipped', actual: expect.stringMatching(/--groups/) })
      expect(journal).toHaveLength(15)
    })
  })
}
