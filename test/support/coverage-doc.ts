import { fileURLToPath } from 'node:url'
import { apiErrors } from '../../src/base/errors.ts'
import {
  Coverage,
  type CoverageReport,
  type CoverageSources,
  coverageItems,
  coverageSources,
} from '../../src/core/coverage.ts'
import {
  belowThresholdText,
  coverageOptionsFrom,
  coverageTable,
  coverageVariables,
  thresholdResults,
} from '../../src/harness/coverage-report.ts'
import { generatedBlock } from './docs.ts'

const cell = (text: string) => text.replace(/\|/g, '\\|')
const code = (text: string) => `\`${text}\``

/**
 * What each table of the answer space gives, as a line of the guide's list; a table told in the
 * line of the one before it says so.
 */
const sourceLines: {
  [K in keyof CoverageSources]: ((sources: CoverageSources) => string) | 'told with eventTypes'
} = {
  routes: ({ routes }) => {
    const operations = routes.map(({ operation }) => code(operation)).join(', ')
    const successes = routes
      .filter(({ successes }) => successes)
      .map(
        ({ operation, successes }) => `${operation}: ${Object.values(successes ?? {}).join('; ')}`,
      )
    const errors = routes
      .map(
        ({ operation, errors }) =>
          `${operation} ${errors.map((e) => apiErrors[e].status).join(', ')}`,
      )
      .join('; ')
    const refusals = routes.map(({ operation }) => code(`${operation}.401`)).join(', ')
    return `**each operation** (${operations}): each kind of 200 it gives (${successes.join('; ')}), each documented error row (${errors}), and the refusal of its credentials (${refusals}, also when \`authFailureStatus: 403\` answers it 403);`
  },
  shapeCases: ({ shapeCases }) =>
    `**answer shapes**: each of the ${shapeCases.length} cases of the covering set (see [Every shape the real API may send](answer-shapes.md)), met by an identify answered 200 in that case; \`full\` is not a case;`,
  webViewOutcomes: ({ webViewOutcomes }) =>
    `**web view**: what opening a sign-in token came to: ${webViewOutcomes.map(code).join(', ')} ([Testing the web view](web-view.md));`,
  eventTypes: ({ eventTypes, deliveryOutcomes }) =>
    `**webhooks**: each event type the mock knows by name delivered (${eventTypes.map(code).join(', ')}), and how each delivery ended (${Object.entries(
      deliveryOutcomes,
    )
      .map(([outcome, description]) => `${code(outcome)}: ${description}`)
      .join('; ')}) ([Webhooks](webhooks.md));`,
  deliveryOutcomes: 'told with eventTypes',
  failureCases: ({ failureCases }) =>
    `**failures**: each of the ${failureCases.length} failure cases met by a client ([Every failure a client meets](failures.md#the-failure-cases)).`,
}

/** What the answer space is read from, table by table. */
export function coverageSourcesList(): string {
  return Object.values(sourceLines)
    .flatMap((line) => (typeof line === 'function' ? [`- ${line(coverageSources)}`] : []))
    .join('\n')
}

/** The answer space as the guide lists it: its size by group, then every item. */
export function coverageTables(): string {
  const groups = [...new Set(coverageItems.map((item) => item.group))]
  return [
    `Today's tables give **${coverageItems.length} items** in ${groups.length} groups:`,
    '',
    '| Group | Items |',
    '| --- | ---: |',
    ...groups.map(
      (group) => `| ${group} | ${coverageItems.filter((item) => item.group === group).length} |`,
    ),
    '',
    '| Item | Group | What it is |',
    '| --- | --- | --- |',
    ...coverageItems.map(
      ({ id, group, description }) => `| \`${id}\` | ${group} | ${cell(description)} |`,
    ),
  ].join('\n')
}

/** The answers the guide's example run met, by item, and how many times. */
const exampleMet: Record<string, number> = {
  'identify.200.created': 2,
  'identify.200.updated': 1,
  'identify.400': 1,
  'identify.401': 1,
  'delete.200': 2,
  'delete.404': 1,
  'shape.nulls': 1,
  'webView.redeemed': 1,
  'webView.expired': 1,
  'failure.identify-reset': 1,
  'failure.delete-status-500': 1,
}

/** The report of the guide's example run: what the code reports of the answers in {@link exampleMet}. */
export function exampleReport(): CoverageReport {
  const coverage = new Coverage()
  for (const [id, count] of Object.entries(exampleMet)) {
    if (!coverageItems.some((item) => item.id === id)) {
      throw new Error(`the coverage guide's example meets ${id}, no item of today's tables`)
    }
    for (let time = 0; time < count; time++) coverage.count(undefined, id)
  }
  return coverage.report()
}

/** An object on one line, as the guide writes JSON: `{ "group": "identify", "total": 6 }`. */
const inline = (object: object = {}) =>
  `{ ${Object.entries(object)
    .map(([key, value]) => `${JSON.stringify(key)}: ${JSON.stringify(value)}`)
    .join(', ')} }`

/** The example report as `GET /__mock/coverage` answers it, its first group and first item shown. */
export function exampleJson(): string {
  const { total, met, groups, items } = exampleReport()
  return [
    '```json',
    '{',
    `  "total": ${total},`,
    `  "met": ${met},`,
    `  "groups": [${inline(groups[0])}],`,
    '  "items": [',
    `    ${inline(items[0])}`,
    '  ]',
    '}',
    '```',
  ].join('\n')
}

/** The table the example run prints at its end, as the code prints it. */
export function examplePrinted(): string {
  return ['```text', coverageTable(exampleReport()), '```'].join('\n')
}

/** The line a threshold of no group stops a run with, as the code says it. */
export function exampleNoGroup(): string {
  let said = ''
  try {
    coverageOptionsFrom({}, { [coverageVariables.thresholds]: 'delet=100' })
  } catch (error) {
    said = (error as Error).message
  }
  if (!said) throw new Error('a threshold of no group stopped nothing')
  return ['```text', said, '```'].join('\n')
}

/** The last lines of the example run with `delete` held to 100 %, as the code prints them. */
export function exampleBelow(): string {
  const failed = thresholdResults(exampleReport(), { delete: 100 }).filter((r) => !r.passed)
  return ['```text', belowThresholdText(failed), '```'].join('\n')
}

const guide = 'docs/guides/coverage.md'
const from = 'src/core/coverage.ts'
const fromReport = 'src/core/coverage.ts and src/harness/coverage-report.ts'

/**
 * The coverage guide's blocks, each written from the tables it is read from or by the code that
 * prints a run's end: `npm run docs:coverage` writes them all.
 */
export const coverageDocs = [
  generatedBlock(guide, 'coverage:sources', from, coverageSourcesList),
  generatedBlock(guide, 'coverage', from, coverageTables),
  generatedBlock(guide, 'coverage:json', fromReport, exampleJson),
  generatedBlock(guide, 'coverage:printed', fromReport, examplePrinted),
  generatedBlock(guide, 'coverage:no-group', fromReport, exampleNoGroup),
  generatedBlock(guide, 'coverage:below', fromReport, exampleBelow),
]

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const block of coverageDocs) block.write()
}
