import type { FaultQueue, SavedFault } from './faults.ts'

/**
 * Where the settings of an organisation that live beside its records are held (in memory, not in
 * a collection).
 */
export interface SettingHolders {
  faults: FaultQueue
}

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
 * is in every snapshot with no line here, as its users and tokens are; one kept in memory is a
 * row here, a line or two: its reading and its putting back.
 */
export const organisationSettings = {
  faults: setting<SavedFault[]>({
    save: ({ faults }, orgId) => faults.savedOf(orgId),
    restore: ({ faults }, orgId, saved = []) => faults.restoreOrganisation(orgId, saved),
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
