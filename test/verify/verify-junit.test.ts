import { expect, it } from 'vitest'
import { formatJUnit, type VerifyReport } from '../../src/verify/node/index.ts'

const report: VerifyReport = {
  ok: false,
  target: 'https://staging.example.com/?a=1&b=2',
  throwawayUser: { orgId: 'acme', id: 'verify-1', deleted: true, leftBehind: [], unanswered: [] },
  checks: [
    {
      name: 'a <contract> row',
      kind: 'contract',
      verdict: 'differs',
      expected: '"x" & \'y\'',
      actual: 'bell\u0007 and a lone \uD800',
    },
    { name: 'a decision row', kind: 'decision', verdict: 'differs', expected: 'e', actual: 'a' },
    { name: 'a skipped row', kind: 'decision', verdict: 'skipped', expected: 'e', actual: 'why' },
    { name: 'a row that holds', kind: 'contract', verdict: 'same', expected: 'e', actual: 'e' },
  ],
}

it('escapes what XML reserves and replaces what it forbids', () => {
  const xml = formatJUnit(report, { strict: false })
  expect(xml).toContain('name="a &lt;contract&gt; row"')
  expect(xml).toContain(
    'expected: &quot;x&quot; &amp; &apos;y&apos;\nactual: bell\uFFFD and a lone \uFFFD</failure>',
  )
  expect(xml).toContain('name="identify-api-mock verify https://staging.example.com/?a=1&amp;b=2"')
})

it('fails contract rows always and decision rows only when strict; skips skipped rows', () => {
  const loose = formatJUnit(report, { strict: false })
  expect(loose).toContain('tests="4" failures="1" errors="0" skipped="1"')
  expect(loose).toMatch(/name="a decision row">\n {6}<system-out>differs \(decision row/)
  expect(loose).toContain('<skipped message="why"/>')
  expect(loose).toContain('name="a row that holds"></testcase>')
  const strict = formatJUnit(report, { strict: true })
  expect(strict).toContain('tests="4" failures="2"')
  expect(strict.match(/<failure /g)).toHaveLength(2)
})
