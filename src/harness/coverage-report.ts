import { type CoverageReport, coverageItems } from '../core/coverage.ts'

/**
 * What a test run does with its contract coverage at its end: print the table (on by default),
 * write it as JSON and as Markdown (a CI job summary), and fail the run when a group is below its
 * threshold, as code coverage thresholds do.
 *
 * @example { json: 'coverage/identify-api-mock.json', thresholds: { identify: 100, delete: 75 } }
 */
export interface CoverageOptions {
  /** Print the table at the end of the run (default `true`; `IDENTIFY_API_MOCK_COVERAGE_PRINT`). */
  print?: boolean
  /** Write the report as JSON to this file (`IDENTIFY_API_MOCK_COVERAGE_JSON`). */
  json?: string
  /** Write it as Markdown to this file (`IDENTIFY_API_MOCK_COVERAGE_MARKDOWN`). */
  markdown?: string
  /**
   * The least share of each named group's items to meet, in percent (`identify`, `delete`,
   * `answer shapes` or `answer-shapes`, `web view` or `web-view`, `webhooks`, `failures`;
   * `IDENTIFY_API_MOCK_COVERAGE_THRESHOLDS`, as `identify=100,web-view=75`): below it, the run
   * fails. A group the answer space lacks stops the run before its first test.
   */
  thresholds?: Record<string, number>
  /**
   * What the printed table says of the answers never met: `count` (the default), how many in each
   * group; `list`, each of them (`IDENTIFY_API_MOCK_COVERAGE_NEVER_MET`). The JSON and the
   * Markdown always hold every one.
   */
  neverMet?: 'count' | 'list'
}

/** How the text of each option's environment variable reads as the option. */
const variableReaders: {
  [K in keyof Required<CoverageOptions>]: (text: string) => CoverageOptions[K]
} = {
  print: (text) => !/^(false|0|)$/i.test(text.trim()),
  json: (text) => text,
  markdown: (text) => text,
  thresholds: (text) => parseThresholds(text),
  neverMet: (text) => {
    const value = text.trim()
    if (value === 'count' || value === 'list') return value
    throw new TypeError(`expected count or list, not ${JSON.stringify(value.slice(0, 60))}`)
  },
}

type CoverageOptionName = keyof typeof variableReaders

/**
 * The environment variable of each option, derived from its name:
 * `IDENTIFY_API_MOCK_COVERAGE_` and the name in upper snake case.
 */
export const coverageVariables = Object.fromEntries(
  Object.keys(variableReaders).map((name) => [
    name,
    `IDENTIFY_API_MOCK_COVERAGE_${name.replace(/[A-Z]/g, (letter) => `_${letter}`).toUpperCase()}`,
  ]),
) as { readonly [K in CoverageOptionName]: `IDENTIFY_API_MOCK_COVERAGE_${string}` }

/**
 * A setting of the run that cannot be used (a variable's bad value, a threshold of no group): one
 * line, said before the first test runs. Its stack would only point into this package.
 */
export class SetupError extends Error {
  constructor(message: string) {
    super(`identify-api-mock: ${message.replace(/\s*\n\s*/g, ' ')}`)
    this.name = 'SetupError'
    this.stack = this.message
  }
}

/** The groups of this version's answer space, in its order. */
const coverageGroups: readonly string[] = [...new Set(coverageItems.map((i) => i.group))]

/**
 * A group's id: its name with a `-` for each space (`web view`'s is `web-view`), for a list of
 * thresholds written without quotes.
 */
const coverageGroupId = (group: string) => group.replace(/ /g, '-')

/**
 * `given` with what the environment sets over it: as the server's own `IDENTIFY_API_MOCK_*`
 * variables, a variable wins over the config (the config is the project's, the environment the
 * job's). Each threshold's group is named as the report names it (an id, `web-view`, read as
 * `web view`). A variable's bad value, a threshold out of 0 to 100 or of a group this version's
 * answer space lacks throws a {@link SetupError} naming it (and the groups there are).
 *
 * @example coverageOptionsFrom({}, { IDENTIFY_API_MOCK_COVERAGE_THRESHOLDS: 'web-view=100' })
 * // { thresholds: { 'web view': 100 } }
 */
export function coverageOptionsFrom(
  given: CoverageOptions = {},
  env: Record<string, string | undefined> = process.env,
): CoverageOptions {
  const options: Record<string, unknown> = { ...given }
  for (const name of Object.keys(variableReaders) as CoverageOptionName[]) {
    const variable = coverageVariables[name]
    const text = env[variable]
    if (!text) continue
    try {
      options[name] = variableReaders[name](text)
    } catch (error) {
      throw new SetupError(`${variable}: ${(error as Error).message}`)
    }
  }
  const where = env[coverageVariables.thresholds]
    ? coverageVariables.thresholds
    : 'coverage.thresholds'
  const thresholds = options.thresholds as CoverageOptions['thresholds']
  return {
    ...(options as CoverageOptions),
    ...(thresholds && { thresholds: groupThresholds(thresholds, where) }),
  }
}

function parseThresholds(text: string): Record<string, number> {
  const entries = text.split(',').map((pair) => {
    const [group = '', percent = ''] = pair.split('=').map((part) => part.trim())
    const value = Number(percent)
    if (!group || percent === '' || !(value >= 0 && value <= 100)) {
      throw new TypeError(
        `expected group=percent pairs, e.g. identify=100,delete=75, not ${JSON.stringify(pair)}`,
      )
    }
    return [group, value] as const
  })
  return Object.fromEntries(entries)
}

/** The thresholds by the groups' names, each checked; `where` is what the message names. */
function groupThresholds(
  thresholds: Record<string, number>,
  where: string,
): Record<string, number> {
  const byId = new Map(
    coverageGroups.flatMap((g) => [[g, g] as const, [coverageGroupId(g), g] as const]),
  )
  return Object.fromEntries(
    Object.entries(thresholds).map(([given, least]) => {
      const group = byId.get(given.trim())
      if (group === undefined) {
        throw new SetupError(
          `${where}: no group ${JSON.stringify(given.slice(0, 60))} (the groups are ${coverageGroups.map(coverageGroupId).join(', ')})`,
        )
      }
      if (typeof least !== 'number' || !(least >= 0 && least <= 100)) {
        throw new SetupError(
          `${where}: ${given}: expected a percent from 0 to 100, not ${JSON.stringify(least)}`,
        )
      }
      return [group, least]
    }),
  )
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
 * The report as the end of a run prints it: met of total, then each group, then how many items
 * were never met in each group (`neverMet: 'list'`: each item never met, with what it is).
 *
 * @example
 * identify-api-mock: the clients met 9 of 31 answers the API may give
 *   identify        4/6   67 %
 *   …
 * Never met: 22 (identify 2, delete 3, …): each in the JSON and Markdown, or with IDENTIFY_API_MOCK_COVERAGE_NEVER_MET=list
 */
export function coverageTable(
  report: CoverageReport,
  neverMet: CoverageOptions['neverMet'] = 'count',
): string {
  const width = Math.max(...report.groups.map(({ group }) => group.length))
  const groups = report.groups.map(
    ({ group, total, met }) =>
      `  ${group.padEnd(width)}  ${`${met}/${total}`.padStart(7)}  ${percentOf(met, total).toFixed(0).padStart(3)} %`,
  )
  const never = report.items.filter((item) => item.count === 0)
  const idWidth = Math.max(0, ...never.map(({ id }) => id.length))
  const counts = report.groups
    .filter(({ met, total }) => met < total)
    .map(({ group, met, total }) => `${group} ${total - met}`)
  const listed =
    neverMet === 'list'
      ? [
          'Never met:',
          ...never.map(({ id, description }) => `  ${id.padEnd(idWidth)}  ${description}`),
        ]
      : [
          `Never met: ${never.length} (${counts.join(', ')}): each in the JSON and Markdown, or with ${coverageVariables.neverMet}=list`,
        ]
  return [
    `identify-api-mock: the clients met ${report.met} of ${report.total} answers the API may give`,
    ...groups,
    ...(never.length > 0 ? listed : ['Every answer was met.']),
  ].join('\n')
}

/** A group's threshold, and whether the run met it. */
export interface ThresholdResult {
  group: string
  /** The threshold, in percent. */
  least: number
  /** The share of the group's items met, in percent (rounded down to a whole one when printed). */
  percent: number
  met: number
  total: number
  passed: boolean
}

/**
 * Each threshold's outcome, in the order given: a group the report lacks (a server of another
 * version) fails, with nothing met.
 *
 * @example thresholdResults(report, { identify: 100 }) // [{ group: 'identify', least: 100, percent: 66.7, met: 4, total: 6, passed: false }]
 */
export function thresholdResults(
  report: CoverageReport,
  thresholds: Record<string, number> = {},
): ThresholdResult[] {
  return Object.entries(thresholds).map(([group, least]) => {
    const { met, total } = report.groups.find((g) => g.group === group) ?? { met: 0, total: 0 }
    const percent = total === 0 ? 0 : percentOf(met, total)
    return { group, least, percent, met, total, passed: total > 0 && percent >= least }
  })
}

/** A threshold not met, in a line: `webhooks: 0 % of its answers met (0/5), below 100 %`. */
export function belowLine({ group, percent, met, total, least }: ThresholdResult): string {
  return `${group}: ${Math.floor(percent)} % of its answers met (${met}/${total}), below ${least} %`
}

/**
 * The last lines of a run below a threshold: what fell short, a group a line, and what it did.
 *
 * @example belowThresholdText(failed) // 'identify-api-mock: contract coverage below its threshold:\n  webhooks: 0 % …'
 */
export function belowThresholdText(failed: readonly ThresholdResult[]): string {
  return [
    'identify-api-mock: contract coverage below its threshold:',
    ...failed.map((result) => `  ${belowLine(result)}`),
    'identify-api-mock: the run fails (exit code 1), however its tests went',
  ].join('\n')
}

/**
 * The report as Markdown: the thresholds' outcome first (a failed one cannot be missed), a table of
 * the groups, and every item never met.
 */
function coverageMarkdown(
  report: CoverageReport,
  thresholds: readonly ThresholdResult[] = [],
): string {
  const cell = (text: string) => text.replace(/\|/g, '\\|')
  const never = report.items.filter((item) => item.count === 0)
  const failed = thresholds.filter((result) => !result.passed)
  const outcome =
    thresholds.length === 0
      ? []
      : failed.length > 0
        ? [
            '**The run failed: contract coverage below its threshold.**',
            '',
            ...failed.map((result) => `- ${cell(belowLine(result))}`),
            '',
          ]
        : [
            `Every group meets its threshold (${thresholds.map(({ group, least }) => `${cell(group)} ${least} %`).join(', ')}).`,
            '',
          ]
  return [
    '## What the suite proved against the Identify and Delete User API',
    '',
    ...outcome,
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
 * What a run does at its end with `report` (see {@link CoverageOptions}): prints, writes (the
 * thresholds' outcome in the JSON and the Markdown too), and returns the thresholds not met (the
 * caller fails the run on any, with {@link belowThresholdText} as its last lines).
 *
 * @example const failed = await finishCoverage(report, coverageOptionsFrom(options.coverage))
 */
export async function finishCoverage(
  report: CoverageReport,
  options: CoverageOptions,
  print: (text: string) => void = (text) => process.stdout.write(`${text}\n`),
): Promise<ThresholdResult[]> {
  const thresholds = thresholdResults(report, options.thresholds)
  if (options.print !== false) print(coverageTable(report, options.neverMet))
  const { mkdir, writeFile } = await import('node:fs/promises')
  const { dirname } = await import('node:path')
  const write = async (path: string, text: string) => {
    await mkdir(dirname(path), { recursive: true })
    await writeFile(path, text)
  }
  if (options.json) {
    const json = options.thresholds ? { ...report, thresholds } : report
    await write(options.json, `${JSON.stringify(json, null, 2)}\n`)
  }
  if (options.markdown) await write(options.markdown, coverageMarkdown(report, thresholds))
  return thresholds.filter((result) => !result.passed)
}
