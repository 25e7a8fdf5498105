import type { CoverageReport } from '../core/coverage.ts'

/**
 * What a test run does with its contract coverage at its end: print the table (on by default),
 * write it as JSON and as Markdown (a CI job summary), and fail the run when a group is below its
 * threshold, as code coverage thresholds do.
 *
 * @example { json: 'coverage/identify-api-mock.json', thresholds: { identify: 100, delete: 75 } }
 */
export interface CoverageOptions {
  /** Print the table at the end of the run (default `true`). */
  print?: boolean
  /** Write the report as JSON to this file (`IDENTIFY_API_MOCK_COVERAGE_JSON`). */
  json?: string
  /** Write it as Markdown to this file (`IDENTIFY_API_MOCK_COVERAGE_MARKDOWN`). */
  markdown?: string
  /**
   * The least share of each named group's items to meet, in percent (`identify`, `delete`,
   * `answer shapes`, `web view`, `webhooks`; `IDENTIFY_API_MOCK_COVERAGE_THRESHOLDS`, as
   * `identify=100,delete=75`): below it, the run fails.
   */
  thresholds?: Record<string, number>
}

/** The environment variables {@link coverageOptionsFrom} reads, beside what a config gives. */
export const coverageVariables = {
  json: 'IDENTIFY_API_MOCK_COVERAGE_JSON',
  markdown: 'IDENTIFY_API_MOCK_COVERAGE_MARKDOWN',
  thresholds: 'IDENTIFY_API_MOCK_COVERAGE_THRESHOLDS',
} as const

/**
 * `given` with what the environment sets over it: as the server's own `IDENTIFY_API_MOCK_*`
 * variables, a variable wins over the config (the config is the project's, the environment the
 * job's). A threshold list that cannot be read throws, naming the variable.
 *
 * @example coverageOptionsFrom({}, { IDENTIFY_API_MOCK_COVERAGE_THRESHOLDS: 'identify=100' })
 */
export function coverageOptionsFrom(
  given: CoverageOptions = {},
  env: Record<string, string | undefined> = process.env,
): CoverageOptions {
  const thresholds = env[coverageVariables.thresholds]
  return {
    ...given,
    ...(env[coverageVariables.json] && { json: env[coverageVariables.json] }),
    ...(env[coverageVariables.markdown] && { markdown: env[coverageVariables.markdown] }),
    ...(thresholds && { thresholds: parseThresholds(thresholds) }),
  }
}

function parseThresholds(text: string): Record<string, number> {
  const entries = text.split(',').map((pair) => {
    const [group = '', percent = ''] = pair.split('=').map((part) => part.trim())
    const value = Number(percent)
    if (!group || percent === '' || !(value >= 0 && value <= 100)) {
      throw new TypeError(
        `${coverageVariables.thresholds}: expected group=percent pairs, e.g. identify=100,delete=75, not ${JSON.stringify(pair)}`,
      )
    }
    return [group, value] as const
  })
  return Object.fromEntries(entries)
}

/**
 * Several reports as one: each item's counts summed (the mocks of every test file of a run).
 *
 * @example mergeCoverage([first, second]).met
 */
export function mergeCoverage(reports: readonly CoverageReport[]): CoverageReport | undefined {
  const [first, ...rest] = reports
  if (!first) return undefined
  const counts = new Map(first.items.map((item) => [item.id, item.count]))
  for (const report of rest) {
    for (const item of report.items) counts.set(item.id, (counts.get(item.id) ?? 0) + item.count)
  }
  const items = first.items.map((item) => ({ ...item, count: counts.get(item.id) ?? 0 }))
  const groups = first.groups.map(({ group, total }) => ({
    group,
    total,
    met: items.filter((item) => item.group === group && item.count > 0).length,
  }))
  return {
    total: first.total,
    met: items.filter((item) => item.count > 0).length,
    groups,
    items,
  }
}

const percentOf = (met: number, total: number) => (total === 0 ? 100 : (100 * met) / total)

/**
 * The report as the end of a run prints it: met of total, then each group, then each item never
 * met with what it is.
 *
 * @example
 * identify-api-mock: the clients met 9 of 31 answers the API may give
 *   identify        4/6   67 %
 *   …
 * Never met:
 *   identify.400    400 Invalid request parameters
 */
export function coverageTable(report: CoverageReport): string {
  const width = Math.max(...report.groups.map(({ group }) => group.length))
  const groups = report.groups.map(
    ({ group, total, met }) =>
      `  ${group.padEnd(width)}  ${`${met}/${total}`.padStart(7)}  ${percentOf(met, total).toFixed(0).padStart(3)} %`,
  )
  const never = report.items.filter((item) => item.count === 0)
  const idWidth = Math.max(0, ...never.map(({ id }) => id.length))
  return [
    `identify-api-mock: the clients met ${report.met} of ${report.total} answers the API may give`,
    ...groups,
    ...(never.length > 0
      ? [
          'Never met:',
          ...never.map(({ id, description }) => `  ${id.padEnd(idWidth)}  ${description}`),
        ]
      : ['Every answer was met.']),
  ].join('\n')
}

/** The report as Markdown: a table of the groups, and the items never met. */
export function coverageMarkdown(report: CoverageReport): string {
  const cell = (text: string) => text.replace(/\|/g, '\\|')
  const never = report.items.filter((item) => item.count === 0)
  return [
    '## What the suite proved against the Identify and Delete User API',
    '',
    `The clients met **${report.met} of ${report.total}** answers the API may give.`,
    '',
    '| Group | Met | Total | % |',
    '| --- | ---: | ---: | ---: |',
    ...report.groups.map(
      ({ group, met, total }) =>
        `| ${cell(group)} | ${met} | ${total} | ${percentOf(met, total).toFixed(0)} |`,
    ),
    '',
    ...(never.length > 0
      ? [
          '### Never met',
          '',
          ...never.map(({ id, description }) => `- \`${id}\`: ${cell(description)}`),
        ]
      : ['Every answer was met.']),
    '',
  ].join('\n')
}

/**
 * The groups below their threshold, each in a line; none when every group meets its own. A
 * threshold for a group the report does not have is a mistake, said as one.
 *
 * @example belowThresholds(report, { identify: 100 }) // ['identify: 67 % of its answers met, below 100 %']
 */
export function belowThresholds(report: CoverageReport, thresholds: Record<string, number> = {}) {
  return Object.entries(thresholds).flatMap(([group, least]) => {
    const row = report.groups.find((g) => g.group === group)
    if (!row) {
      const known = report.groups.map((g) => g.group).join(', ')
      return [`${group}: no such group of answers (the groups are ${known})`]
    }
    const share = percentOf(row.met, row.total)
    return share < least
      ? [
          `${group}: ${share.toFixed(0)} % of its answers met (${row.met}/${row.total}), below ${least} %`,
        ]
      : []
  })
}

/**
 * What a run does at its end with `report` (see {@link CoverageOptions}): prints, writes, and
 * returns the lines of the thresholds not met (the caller fails the run on any).
 *
 * @example const failed = await finishCoverage(report, coverageOptionsFrom(options.coverage))
 */
export async function finishCoverage(
  report: CoverageReport,
  options: CoverageOptions,
  print: (text: string) => void = (text) => process.stdout.write(`${text}\n`),
): Promise<string[]> {
  if (options.print !== false) print(coverageTable(report))
  const { mkdir, writeFile } = await import('node:fs/promises')
  const { dirname } = await import('node:path')
  const write = async (path: string, text: string) => {
    await mkdir(dirname(path), { recursive: true })
    await writeFile(path, text)
  }
  if (options.json) await write(options.json, `${JSON.stringify(report, null, 2)}\n`)
  if (options.markdown) await write(options.markdown, coverageMarkdown(report))
  return belowThresholds(report, options.thresholds)
}
