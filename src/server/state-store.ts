import { dirname } from 'node:path'
import type { Credentials } from '../../fixtures/dataset.ts'
import type { StateStore } from '../mock-core.ts'
import type { MockState } from '../model/database.ts'
import type { ResolvedMockApiOptions } from '../options.ts'
import { hashSecret, secretHint } from '../secrets.ts'
import { StateFile, StateFileError } from './state-file.ts'

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
  organisations: ResolvedMockApiOptions['organisations'],
): StateFileStore {
  let file: StateFile | undefined
  const opened = () => {
    if (!file) throw new Error(`${path} is not open`)
    return file
  }
  return {
    open(seeded) {
      const result = openOrExplain(path, () => seeded.state)
      file = result.file
      if (!result.loaded) return seeded
      const { state } = result
      const changed = applyOrganisations(state, seeded.state, organisations)
      if (changed) file.compact(state)
      return { state, credentials: credentialsOf(state, seeded.credentials) }
    },
    commit: (changes, records) => opened().append(changes, records),
    replace: (state) => opened().compact(state),
    close: () => file?.close(),
  }
}

function openOrExplain(path: string, initial: () => MockState) {
  try {
    return StateFile.open(path, initial)
  } catch (error) {
    if (error instanceof StateFileError) throw error
    const why =
      (error as NodeJS.ErrnoException).code === 'ENOENT'
        ? `its directory ${dirname(path)} does not exist`
        : (error as Error).message
    throw new StateFileError(`cannot use ${path} as a state file: ${why}`)
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
      const ofOrg = <R extends { orgId: string }>(records: R[]) =>
        records.filter((r) => r.orgId === orgId)
      const users = ofOrg(seeded.users)
      const userIds = new Set(users.map((u) => u.userId))
      const ofUsers = <R extends { userId: string }>(records: R[]) =>
        records.filter((r) => userIds.has(r.userId))
      state.organisations.push(...ofOrg(seeded.organisations))
      state.userGroups.push(...ofOrg(seeded.userGroups))
      state.learningPaths.push(...ofOrg(seeded.learningPaths))
      state.users.push(...users)
      state.learningProgress.push(...ofUsers(seeded.learningProgress))
      state.certificates.push(...ofUsers(seeded.certificates))
    }
    for (const key of apiKeys) {
      const keyHash = hashSecret(key)
      const record = state.apiKeys.find((k) => k.keyHash === keyHash)
      if (record?.orgId === orgId) continue
      changed = true
      if (record) record.orgId = orgId
      else state.apiKeys.push({ keyHash, keyHint: secretHint(key), orgId })
    }
  }
  return changed
}

/**
 * The credentials that open `state`: of the keys the server was given (seeded or on the command
 * line), those the state holds. An organisation whose keys the file holds only as hashes is
 * listed without a key.
 */
function credentialsOf(state: MockState, given: Credentials[]): Credentials[] {
  const keyOrgs = new Map(state.apiKeys.map((k) => [k.keyHash, k.orgId]))
  return state.organisations.map(({ orgId, name }) => ({
    orgId,
    name,
    apiKeys: [
      ...new Set(
        given.flatMap((c) => c.apiKeys).filter((k) => keyOrgs.get(hashSecret(k)) === orgId),
      ),
    ],
  }))
}
