import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { webhookEventTypes } from '../../src/webhooks/events.ts'
import { docSection } from '../support/docs.ts'
import { webhooksDocs } from '../support/webhooks-doc.ts'

const guide = 'docs/guides/webhooks.md'

/** The guide docs/guides/webhooks.md says which event types the mock knows and how each is raised. */
describe('the webhooks guide', () => {
  it('lists the event types and how to raise each as the event table has them: run `npm run docs:webhooks` after changing it', () => {
    for (const block of webhooksDocs) {
      expect(readFileSync(block.path, 'utf8')).toBe(block.whole())
    }
  })

  it('names each event type the mock knows, with the fields of its data and of its input', () => {
    const sent = docSection(guide, '## What the platform sends')
    const raised = docSection(guide, '## Endpoints and events')
    for (const [type, row] of Object.entries(webhookEventTypes)) {
      expect(sent).toContain(`- \`${type}\`: `)
      for (const field of Object.keys(row.data.shape)) expect(sent).toContain(`"${field}"`)
      for (const field of Object.keys(row.inputSchema.shape)) expect(raised).toContain(`"${field}"`)
    }
  })
})
