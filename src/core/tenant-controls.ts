import * as z from 'zod'
import { type OrganisationInput, organisationInputSchema, type PutUser } from '../api/data-file.ts'
import type { Latency } from '../api/latency.ts'
import type { Shapes } from '../api/shape-cases.ts'
import type { Snapshot } from '../api/snapshot-schemas.ts'
import { ApiError, InvalidInput } from '../base/errors.ts'
import { hashSecret } from '../base/secrets.ts'
import type { CollectionName } from '../model/collections.ts'
import type { MockState } from '../model/database.ts'
import type { Credentials, Dataset, Seed } from '../model/dataset.ts'
import { organisationSlice, startClocks } from '../model/declared-data.ts'
import { withUserIdsFree } from '../model/user-ids.ts'
import type { ResolvedMockApiOptions } from '../options/mock-api-options.ts'
import { setOrganisationShapes } from '../rules/answer-shapes.ts'
import type { RuleContext } from '../rules/context.ts'
import { setOrganisationLatency } from '../rules/latency.ts'
import {
  generateApiKey,
  generateOrganisationId,
  parseInput,
  putUser,
  startOfOrganisation,
} from '../rules/organisations.ts'
import {
  jsonInSteps,
  Pace,
  seedInSteps,
  slicesOf,
  stageInSlices,
  stillStaged,
} from './organisation-in-slices.ts'
import { restoreSettings, type SettingHolders, saveSettings } from './organisation-settings.ts'
import {
  dropSnapshot,
  forkedStart,
  listSnapshots,
  restoreSnapshot,
  saveSnapshot,
  snapshotNamed,
} from './snapshots.ts'
import type { Transactions } from './transactions.ts'

/** What a reset of one organisation keeps of its records: its snapshots. */
const keptByReset = new Set<CollectionName>(['organisationSnapshots'])

/**
 * An organisation created at run time: its id, and its API key in clear.
 *
 * @example createdOrganisationSchema.parse({ orgId: 'tenant-x', apiKey: 'sk_test_…' })
 */
export const createdOrganisationSchema = z.strictObject({
  orgId: z.string(),
  apiKey: z.string().describe('in clear: Authorization: Bearer <apiKey>'),
})

export type CreatedOrganisation = z.output<typeof createdOrganisationSchema>

/** A user put in an exact state: whether it was created (or replaced). */
export interface PutUserResult {
  created: boolean
}

/**
 * The core functions of `MockCore.organisations`, which the control table's organisation rows call:
 * the {@link TenantControls} the core keeps, less what only the core itself uses.
 */
export type OrganisationCore = Omit<TenantControls, 'has' | 'reset' | 'credentials'>

/** What the tenant controls work over: the records, where the mock started, and its calls. */
export interface TenantDeps {
  transactions: Transactions
  options: ResolvedMockApiOptions
  seed: Seed
  /** The data the mock started from (the seed and the data file). */
  dataset(): Dataset
  /** The organisations and keys to start from (the store's, when it kept some). */
  credentials: Credentials[]
  /** Where the settings a snapshot keeps beside the records are held (queued faults…). */
  settings: SettingHolders
  /** Forgets the journal entries, queued faults and deliveries of an organisation. */
  forgetCallsOf(orgId: string): void
  /** Forgets all an organisation removed left beside its records: its calls and its coverage. */
  forgetOrganisation(orgId: string): void
}

/**
 * Organisations created, removed and reset at run time (a tenant per test worker), and users put
 * in exact states; with the credentials a client can use, kept up to date.
 *
 * @example
 * const { orgId } = await tenants.create({ users: 2 })
 * await tenants.reset(orgId)
 */
export class TenantControls {
  /** The organisations and API keys a client can use, keys in clear. */
  credentials: Credentials[]
  readonly #deps: TenantDeps
  /**
   * The organisations being created, by id, with how many of their users are still to be stored
   * (see {@link create}): those stored already count among the mock's users.
   */
  readonly #creating = new Map<string, number>()
  /** The steps of the creations under way, one at a time, each followed by a rest (see `Pace`). */
  readonly #pace = new Pace()

  constructor(deps: TenantDeps) {
    this.#deps = deps
    this.credentials = deps.credentials
  }

  /** Whether the mock has organisation `orgId`. */
  has(orgId: string): boolean {
    return this.#deps.transactions.ctx.db.organisations.get(orgId) !== undefined
  }

  /**
   * Creates an organisation with a fresh API key (and, as `input` says, an id, a name, groups,
   * paths and users); resolves to its id and key (the in-process API and the client give its
   * tenant handle). Rejects with the API's 409 `Conflict` for an `orgId` the mock has (or is
   * creating), and a `TypeError` for invalid input or past `maxOrganisations` or `maxUsers`.
   *
   * Its users are stored in slices, a turn of the queue each, other operations running between
   * them (see `stageInSlices`); the organisation, its key and the rest come in its last turn, which
   * claims them: until then no call can use it, and a creation that fails leaves nothing.
   */
  async create(input: OrganisationInput = {}): Promise<CreatedOrganisation> {
    const { transactions } = this.#deps
    const parsed = parseInput(organisationInputSchema, input)
    const orgId = parsed.orgId ?? generateOrganisationId()
    const users = typeof parsed.users === 'number' ? parsed.users : (parsed.users?.length ?? 0)
    // Its room is taken first: a creation under way counts against the bounds.
    await transactions.exclusive(async () => this.#reserve(orgId, users))
    try {
      const apiKey = generateApiKey()
      // A fork starts from a snapshot (404 `Not found` for an unknown one), as it stands now.
      const { from } = parsed
      const source = from && snapshotNamed(transactions.ctx.db, from.orgId, from.snapshot)
      const start = source
        ? await this.#pace.step(() =>
            forkedStart(transactions.ctx, source, orgId, apiKey, parsed.name),
          )
        : await this.#startOf(orgId, parsed, apiKey)
      const { slices, rest } = await this.#pace.step(() => slicesOf(start))
      // What a reset of it starts from: stored with its users, of several megabytes' JSON.
      const records = await jsonInSteps(this.#pace, start)
      slices.push({ organisationStarts: [{ orgId, records }] })
      for (;;) {
        const staged = await stageInSlices(
          this.#pace,
          transactions,
          slices,
          (ctx) => this.#withinUsers(ctx),
          (stored) => this.#creating.set(orgId, users - stored),
        )
        const created = await this.#pace.step(() =>
          transactions.transact(async (ctx) => {
            const { db } = ctx
            // A reset of the whole mock took the staged records: they are stored again.
            if (db !== staged.db) return undefined
            if (!stillStaged(ctx, staged)) {
              await db.unstage(staged.records)
              throw new ApiError('conflict')
            }
            try {
              this.#withinUsers(ctx)
            } catch (error) {
              await db.unstage(staged.records)
              throw error
            }
            db.claim(staged.records)
            // Its clock starts now; a reset starts it again (its start keeps the declared instant).
            await db.add(startClocks(rest, ctx.real()))
            // Held in clear from now on: the journal redacts it wherever another call carries it.
            db.secretFingerprints.add(apiKey, hashSecret(apiKey))
            return { orgId, apiKey, name: start.organisations[0]?.name ?? orgId }
          }),
        )
        if (created) {
          // Once its records are kept: no call can carry its key before this resolves.
          if (source) restoreSettings(this.#deps.settings, orgId, source.settings)
          this.credentials = [...this.credentials, { orgId, name: created.name, apiKeys: [apiKey] }]
          return { orgId, apiKey }
        }
      }
    } finally {
      this.#creating.delete(orgId)
    }
  }

  /**
   * The records organisation `orgId` starts with, as `parsed` declares them: the seed's users,
   * built in steps outside the queue, asked for only when `users` is a count.
   */
  async #startOf(orgId: string, parsed: z.output<typeof organisationInputSchema>, apiKey: string) {
    const { transactions, options, seed } = this.#deps
    const { state: fixtures } = await seedInSteps(this.#pace, seed, {
      ...options,
      seededOrganisations: 0,
      organisations: [
        { orgId, apiKeys: [apiKey], users: typeof parsed.users === 'number' ? parsed.users : 0 },
      ],
      data: undefined,
    })
    return this.#pace.step(() =>
      startOfOrganisation(transactions.ctx, orgId, parsed, apiKey, () => fixtures),
    )
  }

  /**
   * Reserves room for organisation `orgId` with `users` users: 409 `Conflict` for an id the mock
   * has or is creating, a `TypeError` past `maxOrganisations` or `maxUsers` (the creations under
   * way counted in).
   */
  #reserve(orgId: string, users: number): void {
    const { options, transactions } = this.#deps
    const { db } = transactions.ctx
    if (this.has(orgId) || this.#creating.has(orgId)) throw new ApiError('conflict')
    const max = options.maxOrganisations
    if (db.organisations.size + this.#creating.size >= max) {
      throw new InvalidInput(
        `Invalid request parameters: the mock holds ${max} organisations, its limit (maxOrganisations, --max-orgs)`,
      )
    }
    let reserved = 0
    for (const count of this.#creating.values()) reserved += count
    this.#withinUsers(transactions.ctx, reserved + users)
    this.#creating.set(orgId, users)
  }

  /**
   * A `TypeError` when the mock holds more than `maxUsers` users (the users of the creations under
   * way stored so far counted in), or would with `more`.
   */
  #withinUsers(ctx: RuleContext, more = 0): void {
    const max = this.#deps.options.maxUsers
    if (ctx.db.collections.users.count() + more > max) {
      throw new InvalidInput(
        `Invalid request parameters: the mock would hold more than ${max} users, its limit (maxUsers, --max-users)`,
      )
    }
  }

  /**
   * Sets the answer shapes of organisation `orgId` (`full`, `varied` or a case's name), which win
   * over the mock's; a reset of the organisation takes it back to what it started with. Rejects
   * with 404 `Not found` for an unknown organisation, and a `TypeError` for anything else.
   *
   * @example await api.organisations.setShapes(orgId, api.shapes.cases()[1].name)
   */
  setShapes(orgId: string, shapes: Shapes): Promise<void> {
    return this.#deps.transactions.transact((ctx) => setOrganisationShapes(ctx, orgId, shapes))
  }

  /**
   * Sets the latency of organisation `orgId` (`null`: the mock's again), which wins over the
   * mock's; a reset of the organisation takes it back to what it started with. Rejects with 404
   * `Not found` for an unknown organisation, and a `TypeError` for anything else.
   *
   * @example await api.organisations.setLatency(orgId, { medianMs: 80, p99Ms: 900 })
   */
  setLatency(orgId: string, latency: Latency | null): Promise<void> {
    return this.#deps.transactions.transact((ctx) => setOrganisationLatency(ctx, orgId, latency))
  }

  /**
   * Removes an organisation and everything of it: keys, groups, paths, users, journal entries,
   * faults and deliveries. Rejects with 404 `Not found` for one the mock does not have.
   */
  async remove(orgId: string): Promise<void> {
    await this.#deps.transactions.transact(async (ctx) => {
      if (!this.has(orgId)) throw new ApiError('notFound')
      ctx.db.removeOrganisation(orgId)
      // In the queue: a call of it still under way journals nothing once it ends.
      this.#deps.forgetOrganisation(orgId)
    })
    this.credentials = this.credentials.filter((c) => c.orgId !== orgId)
  }

  /**
   * Creates or replaces user `id` of `orgId` in the exact state `user` declares (a data-file user
   * without `orgId` and `id`). Rejects with 404 `Not found` for an unknown organisation, and a
   * `TypeError` for invalid input.
   */
  async putUser(orgId: string, id: string, user: PutUser): Promise<PutUserResult> {
    return this.#deps.transactions.transact(async (ctx) => ({
      created: await putUser(ctx, orgId, id, user),
    }))
  }

  /**
   * The snapshots of organisation `orgId`, oldest first. Rejects with 404 `Not found` for an
   * unknown organisation.
   *
   * @example await api.organisations.snapshots(orgId) // [{ name: 'ten-users', createdAt, users: 10, bytes: 5120 }]
   */
  snapshots(orgId: string): Promise<Snapshot[]> {
    return this.#deps.transactions.exclusive(async () =>
      listSnapshots(this.#deps.transactions.ctx.db, orgId),
    )
  }

  /**
   * Saves the state of organisation `orgId` as snapshot `name`: its users, sign-in tokens and
   * web-view sessions, groups and paths, and its settings (clock, shapes, latency, queued
   * faults…); not its journal, coverage or deliveries. Rejects with 404 `Not found` for an
   * unknown organisation, 409 `Conflict` for a name it has, and a `TypeError` for a bad name or
   * past a bound (16 snapshots, `maxStateBytes`).
   *
   * @example await api.organisations.saveSnapshot(orgId, 'ten-users')
   */
  saveSnapshot(orgId: string, name: string): Promise<Snapshot> {
    const { transactions, options, settings } = this.#deps
    return transactions.transact((ctx) =>
      saveSnapshot(ctx, orgId, name, saveSettings(settings, orgId), options.maxStateBytes),
    )
  }

  /**
   * Puts organisation `orgId` back in the state of its snapshot `name`, settings included; its
   * journal entries and deliveries are cleared, as a reset clears them. Rejects with 404
   * `Not found` for an unknown organisation or name.
   *
   * @example beforeEach(() => api.organisations.restoreSnapshot(orgId, 'ten-users'))
   */
  async restoreSnapshot(orgId: string, name: string): Promise<void> {
    const holders = this.#deps.settings
    // Put back if the records cannot be kept (past maxStateBytes, a state file that fails).
    const before = this.has(orgId) ? saveSettings(holders, orgId) : undefined
    try {
      await this.#deps.transactions.transact(async (ctx) => {
        const settings = restoreSnapshot(ctx, orgId, name)
        this.#deps.forgetCallsOf(orgId)
        restoreSettings(holders, orgId, settings)
      })
    } catch (error) {
      if (before !== undefined && this.has(orgId)) restoreSettings(holders, orgId, before)
      throw error
    }
  }

  /**
   * Drops snapshot `name` of organisation `orgId`. Rejects with 404 `Not found` for an unknown
   * organisation or name.
   *
   * @example await api.organisations.dropSnapshot(orgId, 'ten-users')
   */
  async dropSnapshot(orgId: string, name: string): Promise<void> {
    await this.#deps.transactions.transact((ctx) => dropSnapshot(ctx.db, orgId, name))
  }

  /**
   * Puts organisation `orgId` back where it started (the seed and the data file, or what it was
   * created with) and forgets its calls; 404 `Not found` for one the mock does not have.
   */
  async reset(orgId: string): Promise<void> {
    const { transactions, dataset } = this.#deps
    await transactions.transact(async ({ db, generateUserId, real }) => {
      if (!this.has(orgId)) throw new ApiError('notFound')
      const created = db.organisationStarts.get(orgId)
      const start: MockState = created
        ? JSON.parse(created.records)
        : organisationSlice(dataset().state, orgId)
      const startRecord = created && { orgId, records: created.records }
      // Its snapshots stay as they are: a test saves them once and restores them after resets.
      db.removeOrganisation(orgId, keptByReset)
      const returning = { ...start, organisationSnapshots: [] }
      await db.add(
        withUserIdsFree(startClocks(returning, real()), db.usersByUserId, generateUserId),
      )
      // Its keys came back as hashes: those known in clear are held in clear again.
      for (const { apiKeys } of this.credentials.filter((c) => c.orgId === orgId)) {
        for (const key of apiKeys) db.secretFingerprints.add(key, hashSecret(key))
      }
      if (startRecord) await db.collections.organisationStarts.create(startRecord)
      this.#deps.forgetCallsOf(orgId)
    })
  }
}
