import { fileURLToPath } from 'node:url'
import { failureCases } from '../../src/core/failure-cases.ts'
import { type FailureKind, failureKinds } from '../../src/core/failure-kinds.ts'
import { kindStatuses } from '../../src/core/faults.ts'
import { apiRoutes } from '../../src/core/routes.ts'
import { generatedBlock } from './docs.ts'

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

const guide = 'docs/guides/failures.md'
const from = 'src/core/failure-kinds.ts and failure-cases.ts'

/** The failures guide's tables, written from the kinds table and the case list: `npm run docs:failures`. */
export const failuresDocs = [
  generatedBlock(guide, 'failures:kinds', from, () => kindsTable().join('\n')),
  generatedBlock(guide, 'failures:cases', from, () => casesTable().join('\n')),
]

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const block of failuresDocs) block.write()
}
