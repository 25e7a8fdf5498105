import { styleText } from 'node:util'
import type { VerifyPlan } from '../dry-run.ts'
import { type CheckResult, isFailing, type VerifyReport } from '../report.ts'
import { verifyRows } from '../rows.ts'
import { describeLeftBehind, describeUnanswered } from '../run.ts'

type Paint = (style: Parameters<typeof styleText>[0], text: string) => string

const painter = (colour: boolean): Paint =>
  colour ? (style, text) => styleText(style, text, { validateStream: false }) : (_, text) => text

const meanings = new Map(verifyRows.map((row) => [row.name, row.meaning]))

/** How to print a report: in colour (on a terminal), and whether decision rows fail the run. */
export interface FormatOptions {
  colour: boolean
  strict: boolean
}

/**
 * A verification report for people: a table (row, kind, verdict, expected and actual in one
 * line), a summary line, and for each difference what it means for tests run against the mock.
 *
 * @example
 * process.stdout.write(formatReport(report, { colour: process.stdout.hasColors?.() ?? false, strict: false }))
 */
export function formatReport(report: VerifyReport, { colour, strict }: FormatOptions): string {
  const paint = painter(colour)
  const nameWidth = Math.max(3, ...report.checks.map((c) => c.name.length))
  const verdictStyle = (check: CheckResult) =>
    check.verdict === 'same'
      ? 'green'
      : check.verdict === 'skipped'
        ? 'dim'
        : isFailing(check, strict)
          ? 'red'
          : 'yellow'
  const rows = report.checks.map((check) => {
    const verdict = paint(verdictStyle(check), check.verdict.padEnd(7))
    const actual = escapeControls(check.actual)
    const detail =
      check.verdict === 'skipped' ? actual : `expected ${check.expected}; actual ${actual}`
    return `  ${check.name.padEnd(nameWidth)}  ${check.kind.padEnd(8)}  ${verdict}  ${detail}`
  })
  const differences = report.checks.filter((check) => check.verdict === 'differs')
  const user = report.throwawayUser
  return [
    `identify-api-mock verify: ${report.target}`,
    '',
    `  ${'Row'.padEnd(nameWidth)}  ${'Kind'.padEnd(8)}  ${'Verdict'}  Expected; actual`,
    ...rows,
    '',
    paint(report.ok ? 'green' : 'red', summarise(report, strict)),
    ...(user.leftBehind.length === 0
      ? [`The throwaway user ${user.id} of ${user.orgId} was deleted.`]
      : describeLeftBehind(user.leftBehind).map((line) => paint('red', `${capitalise(line)}.`))),
    ...describeUnanswered(user.unanswered).map((line) => paint('yellow', `${capitalise(line)}.`)),
    ...(differences.length > 0
      ? [
          '',
          'What the differences mean for tests that run against the mock:',
          ...differences.map(
            (check) =>
              `  - ${paint('bold', check.name)} (${check.kind}): ${meanings.get(check.name) ?? ''}`,
          ),
        ]
      : []),
    '',
  ].join('\n')
}

const capitalise = (text: string) => text.charAt(0).toUpperCase() + text.slice(1)

/**
 * Characters a terminal acts on rather than shows, written as escapes: C0 and C1 controls and DEL
 * (`\x1b]0;title\x07` would retitle the window, `\x1b[2J` clear it) and the bidirectional
 * controls (which reorder what is shown). For text the target sent, which the report quotes.
 *
 * @example escapeControls('\x1b[2Jok') // '\\x1b[2Jok'
 */
export function escapeControls(text: string): string {
  return text.replace(/[\p{Cc}\p{Bidi_Control}]/gu, (c) => {
    const code = c.charCodeAt(0)
    return code <= 0xff
      ? `\\x${code.toString(16).padStart(2, '0')}`
      : `\\u${code.toString(16).padStart(4, '0')}`
  })
}

/** The summary line, e.g. `28 same, 1 differs (0 contract, 1 decision), 2 skipped: OK`. */
function summarise(report: VerifyReport, strict: boolean): string {
  const count = (verdict: CheckResult['verdict']) =>
    report.checks.filter((check) => check.verdict === verdict).length
  const differing = report.checks.filter((check) => check.verdict === 'differs')
  const contract = differing.filter((check) => check.kind === 'contract').length
  const counts = `${count('same')} same, ${differing.length} differs (${contract} contract, ${differing.length - contract} decision), ${count('skipped')} skipped`
  if (!report.ok) {
    return `${counts}: FAILED, the mock and ${report.target} part ways${strict ? ' (--strict: decision rows count)' : ''}.`
  }
  return differing.length > 0
    ? `${counts}: OK, the contract holds; the decision rows that differ are where the mock chose otherwise.`
    : `${counts}: OK, the mock and ${report.target} agree on every row checked.`
}

/**
 * What `verify --dry-run` prints: the target, the throwaway user, every request in order, and
 * the rows.
 *
 * @example
 * process.stdout.write(formatPlan(planVerification(options)))
 */
export function formatPlan(plan: VerifyPlan): string {
  return [
    `identify-api-mock verify --dry-run: nothing is sent to ${plan.target}`,
    '',
    `Throwaway user: ${plan.throwawayUser.id} in ${plan.throwawayUser.orgId} (a new random id on each run)`,
    `Requests, one at a time (${plan.requests.length}, and one delete more per place the user is left in):`,
    ...plan.requests.map(
      (r, i) => `  ${String(i + 1).padStart(2)}. ${r.method.padEnd(6)} ${r.path}  (${r.purpose})`,
    ),
    '',
    `Rows (${plan.checks.length}):`,
    ...plan.checks.map((c) => `  ${c.kind.padEnd(8)}  ${c.name}: ${c.expected}`),
    '',
  ].join('\n')
}
