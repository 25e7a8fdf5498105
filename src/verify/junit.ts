import { isFailing, type VerifyReport } from './report.ts'

/** Text as XML character data or an attribute value: escaped, and no character XML forbids. */
function escapeXml(text: string): string {
  return text
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '\uFFFD')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
}

/**
 * A verification report as JUnit XML, for CI dashboards: one test case per row, a failure for
 * each row that fails the run (with `strict`, decision rows too), a skip for each skipped row.
 * A decision row that differs without `strict` passes, its difference in `system-out`.
 *
 * @example
 * await writeFile('verify.xml', formatJUnit(report, { strict: false }))
 */
export function formatJUnit(report: VerifyReport, { strict }: { strict: boolean }): string {
  const failures = report.checks.filter((check) => isFailing(check, strict)).length
  const skips = report.checks.filter((check) => check.verdict === 'skipped').length
  const cases = report.checks.map((check) => {
    const open = `    <testcase classname="identify-api-mock.verify.${check.kind}" name="${escapeXml(check.name)}">`
    const detail = escapeXml(`expected: ${check.expected}\nactual: ${check.actual}`)
    if (check.verdict === 'skipped') {
      return `${open}\n      <skipped message="${escapeXml(check.actual)}"/>\n    </testcase>`
    }
    if (isFailing(check, strict)) {
      return `${open}\n      <failure message="${escapeXml(`${check.kind} row differs`)}">${detail}</failure>\n    </testcase>`
    }
    if (check.verdict === 'differs') {
      return `${open}\n      <system-out>${escapeXml('differs (decision row, not a failure without --strict)\n')}${detail}</system-out>\n    </testcase>`
    }
    return `${open}</testcase>`
  })
  const suite = `name="identify-api-mock verify ${escapeXml(report.target)}" tests="${report.checks.length}" failures="${failures}" errors="0" skipped="${skips}"`
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites ${suite}>`,
    `  <testsuite ${suite}>`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n')
}
