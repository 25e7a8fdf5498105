import type { SecretSeal } from '../base/secret-seal.ts'
import type { Webhooks } from '../webhooks/delivery.ts'
import type { WebhookEndpoint } from '../webhooks/webhook-schemas.ts'
import type { Chaos, ChaosSetting } from './chaos.ts'
import type { FaultQueue, SavedFault } from './faults.ts'

/**
 * Where the settings of an organisation that live beside its records are held (in memory, not in
 * a collection).
 */
export interface SettingHolders {
  faults: FaultQueue
  chaos: Chaos
  webhooks: Webhooks
  /** Seals the secrets a snapshot keeps, with a key that never leaves this mock's memory. */
  seal: SecretSeal
}

/**
 * An endpoint an organisation owns, as a snapshot keeps it: its secret sealed (see
 * `createSecretSeal`), never in clear in a record, a state file or `GET /__mock/state`.
 */
type SavedEndpoint = Pick<WebhookEndpoint, 'url' | 'events'> & { sealedSecret: string }

/**
 * One setting of an organisation kept beside its records: read for a snapshot (plain JSON data),
 * and put back on a restore or a fork (`undefined` when the snapshot was saved without it: the
 * setting is cleared).
 */
interface OrganisationSetting<T> {
  save(holders: SettingHolders, orgId: string): T
  restore(holders: SettingHolders, orgId: string, saved: T | undefined): void
}

function setting<T>(row: OrganisationSetting<T>): OrganisationSetting<T> {
  return row
}

/**
 * The settings of an organisation a snapshot holds besides its records: the one list of them.
 * A setting kept as a record that carries its organisation's `orgId` (its clock, answer shapes,
 * latency: `clocks`, `organisationShapes`, `organisationLatencies`, and any collection added so)
 * is in every snapshot with no line here, as its users and tokens are; one kept in memory (queued
 * faults, chaos, owned webhook endpoints) is a row here, a line or two: its reading and its
 * putting back.
 */
const organisationSettings = {
  faults: setting<SavedFault[]>({
    save: ({ faults }, orgId) => faults.savedOf(orgId),
    restore: ({ faults }, orgId, saved = []) => faults.restoreOrganisation(orgId, saved),
  }),
  // Its chaos starts again as it began: the same seed, so the same calls meet the same failures.
  chaos: setting<ChaosSetting | null>({
    save: ({ chaos }, orgId) => chaos.settingOf(orgId) ?? null,
    restore: ({ chaos }, orgId, saved) => {
      chaos.forget(orgId)
      if (saved) chaos.set(orgId, saved)
    },
  }),
  // Its endpoints come back with their URLs, event types and secrets (each under a new id). A
  // secret sealed before a restart cannot be opened after it: that endpoint is not restored, as
  // the live endpoints themselves are not kept across a restart.
  webhookEndpoints: setting<SavedEndpoint[]>({
    save: ({ webhooks, seal }, orgId) =>
      webhooks
        .list({ orgId })
        .map(({ url, secret, events }) => ({ url, sealedSecret: seal.close(secret), events })),
    restore: ({ webhooks, seal }, orgId, saved = []) => {
      for (const { id } of webhooks.list({ orgId })) webhooks.remove(id, { orgId })
      for (const { url, sealedSecret, events } of saved) {
        const secret = seal.open(sealedSecret)
        if (secret === undefined) continue
        webhooks.add({ url, secret, orgId, ...(events && { events: events as never }) })
      }
    },
  }),
}

type SettingName = keyof typeof organisationSettings

/** What a snapshot keeps of the settings of {@link organisationSettings}, by name. */
type SavedSettings = {
  [N in SettingName]?: (typeof organisationSettings)[N] extends OrganisationSetting<infer T>
    ? T
    : never
}

const settingNames = Object.keys(organisationSettings) as SettingName[]

/**
 * The settings of organisation `orgId` kept beside its records, as JSON: what a snapshot stores.
 *
 * @example const settings = saveSettings({ faults }, 'tenant-a') // '{"faults":[…]}'
 */
export function saveSettings(holders: SettingHolders, orgId: string): string {
  const saved: Record<string, unknown> = {}
  for (const name of settingNames) saved[name] = organisationSettings[name].save(holders, orgId)
  return JSON.stringify(saved)
}

/**
 * Puts the settings `json` holds (from {@link saveSettings}, of `orgId` or of the organisation a
 * fork starts from) on organisation `orgId`; a setting it lacks is cleared.
 *
 * @example restoreSettings({ faults }, 'tenant-b', snapshot.settings)
 */
export function restoreSettings(holders: SettingHolders, orgId: string, json: string): void {
  const saved = JSON.parse(json) as SavedSettings
  for (const name of settingNames) {
    const row = organisationSettings[name] as OrganisationSetting<unknown>
    row.restore(holders, orgId, saved[name])
  }
}
