import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { Coverage } from '../../src/core/coverage.ts'
import {
  belowLine,
  belowThresholdText,
  coverageOptionsFrom,
  coverageTable,
  finishCoverage,
  SetupError,
} from '../../src/harness/coverage-report.ts'

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

/** Thresholds are checked when the run starts, each group by its name or its id. */
describe('the thresholds, read before the first test', () => {
  it('take a group by its id (no spaces) or its name, and keep the name', () => {
    const env = { IDENTIFY_API_MOCK_COVERAGE_THRESHOLDS: 'web-view=20,answer-shapes=10,identify=5' }
    expect(coverageOptionsFrom({}, env).thresholds).toEqual({
      'web view': 20,
      'answer shapes': 10,
      identify: 5,
    })
    expect(coverageOptionsFrom({ thresholds: { 'web view': 20, failures: 1 } }, {})).toEqual({
      thresholds: { 'web view': 20, failures: 1 },
    })
  })

  it('refuse a group this version lacks in one line naming every group there is', () => {
    const groups = 'identify, delete, answer-shapes, web-view, webhooks, failures'
    const refusal = (given: Parameters<typeof coverageOptionsFrom>) => {
      try {
        coverageOptionsFrom(...given)
      } catch (error) {
        return { error, lines: String((error as Error).stack).split('\n').length }
      }
      return undefined
    }
    expect(refusal([{}, { IDENTIFY_API_MOCK_COVERAGE_THRESHOLDS: 'delet=50' }])).toEqual({
      error: new SetupError(
        `IDENTIFY_API_MOCK_COVERAGE_THRESHOLDS: no group "delet" (the groups are ${groups})`,
      ),
      lines: 1,
    })
    expect(refusal([{ thresholds: { 'web views': 20 } }, {}])).toEqual({
      error: new SetupError(`coverage.thresholds: no group "web views" (the groups are ${groups})`),
      lines: 1,
    })
    expect(refusal([{ thresholds: { delete: 120 } }, {}])?.error).toEqual(
      new SetupError('coverage.thresholds: delete: expected a percent from 0 to 100, not 120'),
    )
  })
})

describe('what the printed table says of the answers never met', () => {
  it('is a count by group unless the option or its variable asks for the list', () => {
    expect(coverageOptionsFrom({ neverMet: 'list' }, {}).neverMet).toBe('list')
    expect(coverageOptionsFrom({}, { IDENTIFY_API_MOCK_COVERAGE_NEVER_MET: 'list' }).neverMet).toBe(
      'list',
    )
    expect(() => coverageOptionsFrom({}, { IDENTIFY_API_MOCK_COVERAGE_NEVER_MET: 'all' })).toThrow(
      new SetupError('IDENTIFY_API_MOCK_COVERAGE_NEVER_MET: expected count or list, not "all"'),
    )
    const report = new Coverage().report()
    const compact = coverageTable(report).split('\n')
    expect(compact).toHaveLength(2 + report.groups.length)
    expect(compact.at(-1)).toBe(
      `Never met: ${report.total} (${report.groups.map((g) => `${g.group} ${g.total}`).join(', ')}): each in the JSON and Markdown, or with IDENTIFY_API_MOCK_COVERAGE_NEVER_MET=list`,
    )
    const listed = coverageTable(report, 'list').split('\n')
    expect(listed).toHaveLength(2 + report.groups.length + report.total)
    expect(listed.find((line) => line.startsWith('  identify.400'))).toMatch(
      /^ {2}identify\.400 +400 Invalid request parameters$/,
    )
  })
})

describe('a threshold not met', () => {
  it('is in the JSON and, first, in the Markdown, and is what finishCoverage returns', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'identify-api-mock-thresholds-'))
    const coverage = new Coverage()
    coverage.count(undefined, 'identify.400')
    const report = coverage.report()
    const printed: string[] = []
    const options = {
      json: join(dir, 'c.json'),
      markdown: join(dir, 'c.md'),
      thresholds: { identify: 10, 'web view': 50 },
    }
    const failed = await finishCoverage(report, options, (text) => printed.push(text))
    expect(failed.map(belowLine)).toEqual(['web view: 0 % of its answers met (0/5), below 50 %'])
    expect(belowThresholdText(failed).split('\n')).toEqual([
      'identify-api-mock: contract coverage below its threshold:',
      '  web view: 0 % of its answers met (0/5), below 50 %',
      'identify-api-mock: the run fails (exit code 1), however its tests went',
    ])
    expect(JSON.parse(readFileSync(options.json, 'utf8')).thresholds).toEqual([
      { group: 'identify', least: 10, percent: 100 / 6, met: 1, total: 6, passed: true },
      { group: 'web view', least: 50, percent: 0, met: 0, total: 5, passed: false },
    ])
    const markdown = readFileSync(options.markdown, 'utf8')
    expect(markdown.split('\n').slice(0, 5)).toEqual([
      '## What the suite proved against the Identify and Delete User API',
      '',
      '**The run failed: contract coverage below its threshold.**',
      '',
      '- web view: 0 % of its answers met (0/5), below 50 %',
    ])
    const passing = await finishCoverage(
      report,
      { ...options, thresholds: { identify: 10 } },
      () => {},
    )
    expect(passing).toEqual([])
    expect(readFileSync(options.markdown, 'utf8')).toContain(
      'Every group meets its threshold (identify 10 %).',
    )
    expect(printed.join('\n')).toContain('identify-api-mock: the clients met 1 of')
  })
})
