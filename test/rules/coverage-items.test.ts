import { describe, expect, it } from 'vitest'
import {
  Coverage,
  coverageItems,
  coverageItemsOf,
  coverageSources,
} from '../../src/core/coverage.ts'

/**
 * The answer space is read from the tables that already exist: a row, a case or an event added to
 * one of them is an item with no change to the coverage code.
 */
describe('the answer space', () => {
  const ids = (items: { id: string }[]) => items.map((item) => item.id)
  const today = ids(coverageItemsOf(coverageSources))

  it('has an item for each answer of each table, ids unique', () => {
    expect(new Set(today).size).toBe(today.length)
    expect(today).toEqual(
      expect.arrayContaining([
        'identify.200.created',
        'identify.200.updated',
        'identify.400',
        'identify.403',
        'identify.500',
        'identify.401',
        'delete.200',
        'delete.403',
        'delete.404',
        'delete.500',
        'delete.401',
        'shape.nulls',
        'webView.redeemed',
        'webView.expired',
        'webView.already-used',
        'webView.unknown',
        'webView.wrong-organisation',
        'webhook.event.notifications.sent',
        'webhook.delivery.given-up',
        'failure.delete-reset-applied',
        'failure.identify-gateway-429',
      ]),
    )
    expect(ids([...coverageItems])).toEqual(today)
  })

  it('grows by one item for a row added to any of its tables, the coverage code untouched', () => {
    const [identify, remove] = coverageSources.routes
    const grown = {
      routes: [
        { ...identify, errors: [...(identify?.errors ?? []), 'conflict' as const] },
        remove,
        { operation: 'get', errors: [], doc: { ok: "The user's profile." } },
      ],
      shapeCases: [...coverageSources.shapeCases, { name: 'mixed-keys-sorted' }],
      webViewOutcomes: [...coverageSources.webViewOutcomes, 'revoked'],
      eventTypes: [...coverageSources.eventTypes, 'user.registered'],
      deliveryOutcomes: { ...coverageSources.deliveryOutcomes, cancelled: 'cancelled by a reset' },
      failureCases: [
        ...coverageSources.failureCases,
        { name: 'get-reset', operation: 'get', kind: 'reset', applied: false },
      ],
    }
    const added = ids(coverageItemsOf(grown as typeof coverageSources)).filter(
      (id) => !today.includes(id),
    )
    expect(added).toEqual([
      'identify.409',
      'get.200',
      'get.401',
      'shape.mixed-keys-sorted',
      'webView.revoked',
      'webhook.event.user.registered',
      'webhook.delivery.cancelled',
      'failure.get-reset',
    ])
  })
})

describe('Coverage', () => {
  it('counts per organisation and for the whole mock, items only, until cleared', () => {
    const coverage = new Coverage()
    coverage.count('acme', 'identify.200.created')
    coverage.count('acme', 'identify.200.created')
    coverage.count(undefined, 'identify.401')
    coverage.count('acme', 'identify.418')
    const acme = coverage.report('acme')
    expect(acme.items.find((i) => i.id === 'identify.200.created')?.count).toBe(2)
    expect(acme.met).toBe(1)
    expect(coverage.report().met).toBe(2)
    expect(coverage.report().total).toBe(coverageItems.length)
    expect(coverage.report('other').met).toBe(0)
    coverage.clear()
    expect(coverage.report().met).toBe(0)
    expect(coverage.report('acme').met).toBe(0)
  })

  it("keeps no counts of an organisation the mock no longer has, and the whole mock's keep its", () => {
    const organisations = new Set(['acme'])
    const coverage = new Coverage((orgId) => organisations.has(orgId))
    coverage.count('acme', 'delete.200')
    organisations.delete('acme')
    coverage.forget('acme')
    // A call that ends once its organisation is gone counts for the whole mock only.
    coverage.count('acme', 'delete.404')
    coverage.count('gone', 'delete.404')
    expect(coverage.report('acme').met).toBe(0)
    expect(coverage.report('gone').met).toBe(0)
    expect(
      coverage
        .report()
        .items.filter((i) => i.count > 0)
        .map((i) => [i.id, i.count]),
    ).toEqual([
      ['delete.200', 1],
      ['delete.404', 2],
    ])
  })
})
