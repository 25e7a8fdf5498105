import { randomUUID } from 'node:crypto'
import type { StateStore } from '../core/mock-core.ts'
import type { MockState } from '../model/database.ts'
import type { Credentials } from '../model/dataset.ts'
import { apiKeyRecord } from '../model/declared-data.ts'
import type { ResolvedMockApiOptions } from '../options.ts'
import { hashSecret } from '../secrets.ts'
import { asStateFileError, StateFile } from './state-file.ts'

/** A {@link StateStore} over a state file, closed with the server. */
export interface StateFileStore extends StateStore {
  close(): void
}

/**
 * Keeps the mock's records in the state file at `path`. A new file starts from the seeded data;
 * an existing one is the state to start from, with the `organisations` given on the command line
 * (`--org`, `--api-key`) applied on top: an organisation the file lacks is added with its seeded
 * records, and every key given opens its organisation.
 */
export function createStateFileStore(
  path: string,
  warn: (message: string) => void = (message) =>
    process.stderr.write(`identify-api-mock: ${message}\n`),
): StateFileStore {
  let file: StateFile | undefined
  const opened = () => {
    if (!file) throw new Error(`${path} is not open`)
    return file
  }
  return {
    open(seeded, organisations) {
      const result = StateFile.open(path, () => seeded.state, { warn })
      file = result.file
      if (!result.loaded) return seeded
      const { state } = result
      if (applyOrganisations(state, seeded.state, organisations)) {
        try {
          result.file.compact(state)
        } catch (error) {
          result.file.close()
          throw asStateFileError(result.file.path, error)
        }
      }
      return { state, credentials: credentialsOf(state, seeded.credentials) }
    },
    commit(changes, records) {
      try {
        opened().append(changes, records)
      } catch (error) {
        warn(
          `could not write to ${path} (${(error as Error).message}): the call answers 500, and its change is written with the next one`,
        )
        throw error
      }
    },
    replace(state) {
      try {
        opened().compact(state)
      } catch (error) {
        warn(
          `could not rewrite ${path} for the reset (${(error as Error).message}): the reset answers 500, and the data stays as it was`,
        )
        throw error
      }
    },
    close: () => file?.close(),
  }
}

/** Adds what `organisations` name and `state` lacks; whether anything was added. */
function applyOrganisations(
  state: MockState,
  seeded: MockState,
  organisations: ResolvedMockApiOptions['organisations'],
): boolean {
  let changed = false
  for (const { orgId, apiKeys } of organisations) {
    if (!state.organisations.some((o) => o.orgId === orgId)) {
      changed = true
      addOrganisation(state, seeded, orgId)
    }
    for (const key of apiKeys) {
      const keyHash = hashSecret(key)
      const record = state.apiKeys.find((k) => k.keyHash === keyHash)
      if (record?.orgId === orgId) continue
      changed = true
      if (record) record.orgId = orgId
      else state.apiKeys.push(apiKeyRecord(key, orgId))
    }
  }
  return changed
}

/**
 * Adds organisation `orgId` with its seeded records. The fixture ids of an organisation added on a
 * later start come from the same draws as those of one added before (`--org a`, then `--org b`),
 * so a `userId` or `certificateId` the state already holds is replaced by a fresh one.
 */
function addOrganisation(state: MockState, seeded: MockState, orgId: string): void {
  const takenUsers = new Set(state.users.map((u) => u.userId))
  const takenCertificates = new Set(state.certificates.map((c) => c.certificateId))
  const userIds = new Map<string, string>()
  for (const user of seeded.users) {
    if (user.orgId !== orgId) continue
    const userId = takenUsers.has(user.userId) ? randomUUID() : user.userId
    userIds.set(user.userId, userId)
    state.users.push({ ...user, userId, userGroups: [...user.userGroups] })
  }
  const ofOrg = <R extends { orgId: string }>(records: R[]) =>
    records.filter((r) => r.orgId === orgId)
  state.organisations.push(...ofOrg(seeded.organisations))
  state.userGroups.push(...ofOrg(seeded.userGroups))
  state.learningPaths.push(...ofOrg(seeded.learningPaths))
  for (const progress of seeded.learningProgress) {
    const userId = userIds.get(progress.userId)
    if (userId) state.learningProgress.push({ ...progress, userId })
  }
  for (const certificate of seeded.certificates) {
    const userId = userIds.get(certificate.userId)
    if (!userId) continue
    const certificateId = takenCertificates.has(certificate.certificateId)
      ? `cert-${randomUUID().slice(0, 8)}`
      : certificate.certificateId
    state.certificates.push({ ...certificate, userId, certificateId })
  }
}

/**
 * The credentials that open `state`: of the keys the server was given (seeded or on the command
 * line), those the state holds. An organisation whose keys the file holds only as hashes is
 * listed without a key.
 */
function credentialsOf(state: MockState, given: Credentials[]): Credentials[] {
  const keyOrgs = new Map(state.apiKeys.map((k) => [k.keyHash, k.orgId]))
  const keys = [...new Set(given.flatMap((c) => c.apiKeys))].map((key) => ({
    key,
    orgId: keyOrgs.get(hashSecret(key)),
  }))
  return state.organisations.map(({ orgId, name }) => ({
    orgId,
    name,
    apiKeys: keys.filter((k) => k.orgId === orgId).map((k) => k.key),
  }))
}
