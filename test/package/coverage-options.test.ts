import { describe, expect, it } from 'vitest'
import { coverageOptionsFrom } from '../../src/harness/coverage-report.ts'

/** The end-of-run coverage options: the config's, with the job's variables over them. */
describe('coverageOptionsFrom', () => {
  it('takes the variables over the config, and keeps what they leave', () => {
    const env = {
      IDENTIFY_API_MOCK_COVERAGE_JSON: 'job/coverage.json',
      IDENTIFY_API_MOCK_COVERAGE_THRESHOLDS: 'identify=100, delete = 75',
    }
    expect(
      coverageOptionsFrom(
        { json: 'project.json', markdown: 'project.md', thresholds: { webhooks: 50 } },
        env,
      ),
    ).toEqual({
      json: 'job/coverage.json',
      markdown: 'project.md',
      thresholds: { identify: 100, delete: 75 },
    })
    expect(coverageOptionsFrom({ print: false }, {})).toEqual({ print: false })
  })

  it('refuses a threshold list it cannot read, naming the variable and the pair', () => {
    for (const list of ['identify', 'identify=120', '=50', 'identify=many']) {
      expect(() =>
        coverageOptionsFrom({}, { IDENTIFY_API_MOCK_COVERAGE_THRESHOLDS: list }),
      ).toThrow(
        `IDENTIFY_API_MOCK_COVERAGE_THRESHOLDS: expected group=percent pairs, e.g. identify=100,delete=75, not ${JSON.stringify(list)}`,
      )
    }
  })
})
