import { describe, expect, it } from 'vitest'
import { userProfileSchema } from '../../src/api/api-schemas.ts'
import { failureKinds } from '../../src/core/failure-kinds.ts'
import { redeemFailures, redeemOutcomes } from '../../src/rules/sign-in-tokens.ts'
import { checkResultSchema } from '../../src/verify/report.ts'
import { deliveryOutcomes } from '../../src/webhooks/delivery.ts'
import { webhookLimits } from '../../src/webhooks/limits.ts'
import { docSection, readDoc } from '../support/docs.ts'

/**
 * The lists and numbers the guides write inside their prose (where no generated block fits) are
 * those of the tables they come from: a new kind, outcome, field or bound fails here until the
 * sentence says it. The tables themselves are generated (`npm run docs:*`) and checked by each
 * guide's own test.
 */
const behaviour = 'docs/guides/behaviour.md'
/** The row of a guide's table whose first cell is `name`. */
const row = (file: string, name: string) =>
  readDoc(file)
    .split('\n')
    .find((line) => line.startsWith(`| ${name} `)) ?? ''
/** The names a text gives in backquotes (`hang`, `already-used`), in its order. */
const named = (text: string) => [...text.matchAll(/`([\w.-]+)`/g)].map((m) => m[1])
const thousands = (n: number) => n.toLocaleString('en-US')

describe('the lists the guides write in their prose', () => {
  it("behaviour.md's failure kinds are the kinds table's, in its order", () => {
    const kinds = named(row(behaviour, 'Kinds')).filter((name) => name !== 'kind')
    expect(kinds).toEqual(Object.keys(failureKinds))
  })

  it("the web view's outcomes and a delivery's are those of their tables, wherever a guide lists them", () => {
    const items = named(row(behaviour, 'Items'))
    for (const outcome of [...redeemOutcomes, ...Object.keys(deliveryOutcomes)]) {
      expect(items).toContain(outcome)
    }
    const redeem = named(row('docs/guides/testing.md', '`redeemToken(orgId, token)`'))
    expect(redeem.filter((name) => !['true', 'false'].includes(name ?? ''))).toEqual([
      ...redeemFailures,
    ])
    const refresh = named(
      row('docs/guides/web-view.md', '`{"type":"webview:session-refresh","reason":"expired"}`'),
    )
    for (const failure of redeemFailures) expect(refresh).toContain(failure)
  })
})

describe('the numbers the guides write in their prose', () => {
  it("verify.md's kinds of row are those of the report's schema", () => {
    const kinds = checkResultSchema.shape.kind.options
    const words = ['no', 'one', 'two', 'three', 'four']
    const guide = readDoc('docs/guides/verify.md')
    expect(guide).toContain(`Rows come in ${words[kinds.length]} kinds.`)
    for (const kind of kinds) expect(guide).toContain(`**${kind}** rows`)
  })

  it('answer-shapes.md counts the optional and nullable fields of UserProfile as its schema has them', () => {
    const fields = Object.values(userProfileSchema.shape)
    const open = fields.filter(
      (field) => field.safeParse(undefined).success && field.safeParse(null).success,
    )
    expect(readDoc('docs/guides/answer-shapes.md')).toContain(
      `makes ${open.length} of the ${fields.length} fields of \`UserProfile\` optional and nullable`,
    )
  })

  it("the webhook bounds in webhooks.md and behaviour.md are the limits table's", () => {
    const kept = docSection('docs/guides/webhooks.md', '## What is kept, and its bounds').replace(
      /\s+/g,
      ' ',
    )
    const limits = webhookLimits
    for (const phrase of [
      `At most ${limits.endpoints} endpoints of the mock's, and ${limits.endpointsPerOrganisation} of each organisation's`,
      `the newest ${thousands(limits.keptDeliveries)} deliveries to the mock's endpoints are kept, and the newest ${limits.keptDeliveriesPerOrganisation} to each organisation's`,
      `At most ${thousands(limits.pendingDeliveries)} deliveries may be pending`,
      `an event body is at most ${limits.eventBodyBytes / 1024} KiB, a URL ${thousands(limits.urlLength)} characters`,
    ]) {
      expect(kept).toContain(phrase)
    }
    const limitsRow = row(behaviour, 'Webhook deliveries')
    for (const phrase of [
      `The newest ${thousands(limits.keptDeliveries)} to the mock's endpoints kept and the newest ${limits.keptDeliveriesPerOrganisation} to each organisation's, at most ${thousands(limits.pendingDeliveries)} waiting`,
      `each event's body at most ${limits.eventBodyBytes / 1024} KiB`,
      `at most ${limits.endpoints} endpoints of the mock's and ${limits.endpointsPerOrganisation} of each organisation's`,
    ]) {
      expect(limitsRow).toContain(phrase)
    }
  })
})
