import * as z from 'zod'
import { shapeCases } from '../api/shape-cases.ts'
import { type ApiErrorCode, apiErrors } from '../base/errors.ts'
import { redeemOutcomes } from '../rules/sign-in-tokens.ts'
import { deliveryOutcomes } from '../webhooks/delivery.ts'
import { webhookEventTypes } from '../webhooks/events.ts'
import { type FailureCase, failureCaseOf, failureCases } from './failure-cases.ts'
import { apiRoutes, type Operation } from './routes.ts'

/** One answer a client may meet: its stable id, its group and what it is, in a line. */
export interface CoverageItem {
  id: string
  group: string
  description: string
}

/**
 * The tables the answer space is read from: nothing is listed by hand, so that a row, a case or an
 * event added to one of them is an item with no other line (see {@link coverageItemsOf}).
 */
export interface CoverageSources {
  routes: readonly {
    operation: string
    errors: readonly ApiErrorCode[]
    successes?: Readonly<Record<string, string>>
    doc: { ok: string }
  }[]
  shapeCases: readonly { name: string }[]
  webViewOutcomes: readonly string[]
  eventTypes: readonly string[]
  deliveryOutcomes: Readonly<Record<string, string>>
  failureCases: readonly FailureCase<string>[]
}

/** Today's tables. */
export const coverageSources: CoverageSources = {
  routes: apiRoutes,
  shapeCases,
  webViewOutcomes: redeemOutcomes,
  eventTypes: Object.keys(webhookEventTypes),
  deliveryOutcomes,
  failureCases,
}

/** The id of an API answer item: `identify.200.created`, `delete.404`, `identify.401`. */
function answerItemId(operation: string, status: number, outcome?: string): string {
  // Remembered: every call counts one, and a new text costs its hashing in each lookup.
  let byStatus = answerItemIds.get(operation)
  if (!byStatus) {
    byStatus = new Map()
    answerItemIds.set(operation, byStatus)
  }
  let byOutcome = byStatus.get(status)
  if (!byOutcome) {
    byOutcome = new Map()
    byStatus.set(status, byOutcome)
  }
  let id = byOutcome.get(outcome)
  if (id === undefined) {
    id = outcome === undefined ? `${operation}.${status}` : `${operation}.${status}.${outcome}`
    byOutcome.set(outcome, id)
  }
  return id
}

/** The ids {@link answerItemId} made, by operation, status and outcome: at most one per answer. */
const answerItemIds = new Map<string, Map<number, Map<string | undefined, string>>>()

/** The id of an answer-shape case met by a 200. */
export const shapeItemId = (name: string) => `shape.${name}`

/** The id of a web-view outcome. */
export const webViewItemId = (outcome: string) => `webView.${outcome}`

/** The id of a webhook event type delivered. */
export const eventItemId = (type: string) => `webhook.event.${type}`

/** The id of a webhook delivery's outcome. */
export const deliveryItemId = (outcome: string) => `webhook.delivery.${outcome}`

/** The id of a failure case met: `failure.delete-reset-applied`. */
export const failureCaseItemId = (name: string) => `failure.${name}`

/**
 * The item of the failure case a fault taken by `operation` is (see `failureCaseOf`), if it is one.
 *
 * @example failureItemId('delete', { kind: 'reset', applied: true }) // 'failure.delete-reset-applied'
 */
export function failureItemId(
  operation: Operation,
  fault: { kind: FailureCase['kind']; status?: number; applied: boolean },
): string | undefined {
  const met = failureCaseOf(operation, fault)
  return met && failureCaseItemId(met.name)
}

/**
 * Every answer the API may give a client, read from `sources`: for each operation each answer it
 * can give (each kind of 200 its route names, each documented error row, and the refusal of its
 * credentials), each answer-shape case met by a 200, each web-view outcome, each webhook event type
 * delivered, each delivery outcome and each failure case met. In the tables' order; ids are stable
 * for a version.
 *
 * @example coverageItemsOf(coverageSources).map((item) => item.id) // ['identify.200.created', …]
 */
export function coverageItemsOf(sources: CoverageSources): CoverageItem[] {
  const api = sources.routes.flatMap(({ operation, errors, successes, doc }) => [
    ...(successes
      ? Object.entries(successes).map(([outcome, description]) => ({
          id: answerItemId(operation, 200, outcome),
          group: operation,
          description: `200: ${description}`,
        }))
      : [{ id: answerItemId(operation, 200), group: operation, description: `200: ${doc.ok}` }]),
    ...errors.map((code) => {
      const { status, message } = apiErrors[code]
      return {
        id: answerItemId(operation, status),
        group: operation,
        description: `${status} ${message}`,
      }
    }),
    {
      id: answerItemId(operation, 401),
      group: operation,
      description: '401 Unauthorized: refused for its credentials (403 with authFailureStatus 403)',
    },
  ])
  return [
    ...api,
    ...sources.shapeCases.map(({ name }) => ({
      id: shapeItemId(name),
      group: 'answer shapes',
      description: `an identify answered 200 in the case ${name}`,
    })),
    ...sources.webViewOutcomes.map((outcome) => ({
      id: webViewItemId(outcome),
      group: 'web view',
      description: `a sign-in token opened in the web view: ${outcome}`,
    })),
    ...sources.eventTypes.map((type) => ({
      id: eventItemId(type),
      group: 'webhooks',
      description: `a ${type} event delivered`,
    })),
    ...Object.entries(sources.deliveryOutcomes).map(([outcome, description]) => ({
      id: deliveryItemId(outcome),
      group: 'webhooks',
      description: `a delivery ${description}`,
    })),
    ...sources.failureCases.map(({ name, operation, kind, status, applied }) => ({
      id: failureCaseItemId(name),
      group: 'failures',
      description: `${operation}: ${kind}${status === undefined ? '' : ` ${status}`}, ${applied ? 'after the call took effect' : 'nothing applied'}`,
    })),
  ]
}

/** The answer space of this version: {@link coverageItemsOf} today's tables. */
export const coverageItems: readonly CoverageItem[] = coverageItemsOf(coverageSources)

/**
 * What a suite met of the answer space: how many items in all and met, by group, and each item
 * with how many times an answer of its kind reached a client.
 *
 * @example coverageReportSchema.parse(await api.coverage())
 */
export const coverageReportSchema = z.strictObject({
  total: z.int(),
  met: z.int(),
  groups: z.array(z.strictObject({ group: z.string(), total: z.int(), met: z.int() })),
  items: z.array(
    z.strictObject({
      id: z.string(),
      group: z.string(),
      description: z.string(),
      count: z.int().describe('how many answers of this kind reached a client'),
    }),
  ),
})

export type CoverageReport = z.output<typeof coverageReportSchema>

/**
 * The counts of the answers that reached clients, for the whole mock and for each organisation
 * that owned them, over the whole run: no reset clears them (a suite resets after every test), a
 * removed organisation's stay in the whole mock's ({@link forget} drops its own); {@link clear}
 * starts afresh. Counted apart from the journal, so an entry its bound evicted still counts. At
 * most one count per item and organisation the mock has: bounded by the answer space and
 * `maxOrganisations`, however many organisations come and go over the run.
 */
export class Coverage {
  readonly #items: readonly CoverageItem[]
  /** Each item's place in {@link #items}, and so in every array of counts. */
  readonly #indexOf: ReadonlyMap<string, number>
  /** The whole mock's counts, by item place. */
  #all: number[]
  readonly #byOrganisation = new Map<string, number[]>()
  /** Whether the mock has organisation `orgId`: only those get counts of their own. */
  readonly #exists: (orgId: string) => boolean

  constructor(
    exists: (orgId: string) => boolean = () => true,
    items: readonly CoverageItem[] = coverageItems,
  ) {
    this.#exists = exists
    this.#items = items
    this.#indexOf = new Map(items.map((item, at) => [item.id, at]))
    this.#all = this.#noCounts()
  }

  /**
   * Counts an answer of item `id` that reached a client in a call `owner` owns (or none); an answer
   * no item stands for (a 503 past the body budget, a 405) is not counted.
   */
  count(owner: string | undefined, id: string): void {
    const at = this.#indexOf.get(id)
    if (at === undefined) return
    this.#all[at] = (this.#all[at] ?? 0) + 1
    if (owner === undefined) return
    let own = this.#byOrganisation.get(owner)
    if (!own) {
      // A call that ends after its organisation was removed counts for the whole mock only.
      if (!this.#exists(owner)) return
      own = this.#noCounts()
      this.#byOrganisation.set(owner, own)
    }
    own[at] = (own[at] ?? 0) + 1
  }

  /** What was met, by the whole mock or, with `orgId`, by that organisation's calls. */
  report(orgId?: string): CoverageReport {
    const counts = orgId === undefined ? this.#all : this.#byOrganisation.get(orgId)
    const items = this.#items.map((item, at) => ({ ...item, count: counts?.[at] ?? 0 }))
    const groups = new Map<string, { group: string; total: number; met: number }>()
    for (const { group, count } of items) {
      const row = groups.get(group) ?? { group, total: 0, met: 0 }
      row.total++
      if (count > 0) row.met++
      groups.set(group, row)
    }
    const met = items.filter((item) => item.count > 0).length
    return { total: items.length, met, groups: [...groups.values()], items }
  }

  /** Drops the counts of organisation `orgId`, removed; the whole mock's keep what it met. */
  forget(orgId: string): void {
    this.#byOrganisation.delete(orgId)
  }

  /** Starts afresh: nothing met, by the mock or any organisation. */
  clear(): void {
    this.#all = this.#noCounts()
    this.#byOrganisation.clear()
  }

  #noCounts(): number[] {
    return this.#items.map(() => 0)
  }
}

/** The items an API answer stands for, beside its status: what {@link answerItemsOf} reads. */
export interface AnswerFacts {
  operation: Operation
  status: number
  /** Refused for its credentials, whatever the status (401, or 403 by `authFailureStatus`). */
  credentials: boolean
  /** Of a 200: the kind of 200 its route names (`created`, `updated`). */
  outcome?: string | undefined
  /** Of an identify answered 200: the case it took (`full` is not a case). */
  shape?: string | undefined
}

/** The ids of the items an API answer meets (none for an answer no item stands for, a 503). */
export function answerItemsOf(facts: AnswerFacts): string[] {
  const { operation, status, outcome, shape } = facts
  if (facts.credentials) return [answerItemId(operation, 401)]
  if (status !== 200) return [answerItemId(operation, status)]
  const ids = [answerItemId(operation, 200, outcome)]
  if (shape !== undefined && shape !== 'full') ids.push(shapeItemId(shape))
  return ids
}
