import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { failureCases } from '../../src/core/failure-cases.ts'
import { type FailureKind, failureKinds } from '../../src/core/failure-kinds.ts'
import { kindStatuses } from '../../src/core/faults.ts'
import { apiRoutes } from '../../src/core/routes.ts'

/** The failures guide, whose tables between the markers are written by {@link failuresTables}. */
export const failuresGuidePath = fileURLToPath(
  new URL('../../docs/guides/failures.md', import.meta.url),
)

/** The markers of each generated block, by name. */
const markers = (block: 'kinds' | 'cases') => ({
  begin: `<!-- failures:${block}:begin: written by \`npm run docs:failures\` from src/core/failure-kinds.ts and failure-cases.ts -->`,
  end: `<!-- failures:${block}:end -->`,
})

const cell = (text: string) => text.replace(/\|/g, '\\|')

/** What each rule of `applied` lets a fault take, in words. */
const appliedWords: Record<FailureKind['applied'], string> = {
  either: '`false` (default) or `true`',
  always: 'always `true`',
  for500: '`true` with 500 only; `false` by default',
}

/** What `delayMs` is to a kind, in words. */
const delayWords: Record<FailureKind['delay']['role'], string> = {
  before: 'a wait before it',
  bound: 'its bound',
  span: "its body's span",
}

/** The statuses a kind takes, for each operation when they differ. */
function statusesOf(kind: keyof typeof failureKinds): string {
  const by = apiRoutes.map(({ operation }) => ({
    operation,
    statuses: kindStatuses(kind, operation).join(', '),
  }))
  if (by.every(({ statuses }) => statuses === '')) return '–'
  if (by.every(({ statuses }) => statuses === by[0]?.statuses)) return by[0]?.statuses ?? ''
  return by.map(({ operation, statuses }) => `${operation}: ${statuses}`).join('; ')
}

/** The kinds table, as the guide shows it. */
function kindsTable(): string[] {
  const rows = Object.entries(failureKinds).map(([name, kind]: [string, FailureKind]) => {
    const delay = `${delayWords[kind.delay.role]} (default ${kind.delay.defaultMs})`
    return `| \`${name}\` | ${cell(kind.summary)} | ${statusesOf(name as 'status')} | ${appliedWords[kind.applied]} | ${delay} | ${cell(kind.server)} | ${cell(kind.inProcess)} |`
  })
  return [
    '| Kind | What the client meets | Status | `applied` | `delayMs` | Standalone server | In-process (handlers, `api.fetch`) |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
  ]
}

/** The failure cases, as the guide shows them. */
function casesTable(): string[] {
  return [
    `The failure cases are **${failureCases.length} cases**, in this order:`,
    '',
    '| Case | Operation | Kind | Status | `applied` |',
    '| --- | --- | --- | --- | --- |',
    ...failureCases.map(
      (c) =>
        `| \`${c.name}\` | ${c.operation} | \`${c.kind}\` | ${c.status ?? ''} | ${c.applied} |`,
    ),
  ]
}

/** The guide with its blocks written from the kinds table and the case list. */
export function failuresGuide(current = readFileSync(failuresGuidePath, 'utf8')): string {
  let guide = current
  for (const [block, lines] of [
    ['kinds', kindsTable()],
    ['cases', casesTable()],
  ] as const) {
    const { begin, end } = markers(block)
    const from = guide.indexOf(begin)
    const to = guide.indexOf(end)
    if (from === -1 || to === -1) throw new Error(`${failuresGuidePath} has no ${block} markers`)
    guide = `${guide.slice(0, from)}${[begin, '', ...lines, '', end].join('\n')}${guide.slice(to + end.length)}`
  }
  return guide
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(failuresGuidePath, failuresGuide())
}
