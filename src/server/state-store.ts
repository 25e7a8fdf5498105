import { randomUUID } from 'node:crypto'
import type { ResolvedDataFile } from '../api/data-file.ts'
import { ApiError } from '../base/errors.ts'
import { jsonPath } from '../base/issues.ts'
import { rateLimitedLines } from '../base/rate-limited-lines.ts'
import { hashSecret } from '../base/secrets.ts'
import type { StateStore } from '../core/mock-core.ts'
import { collectionNames } from '../model/collections.ts'
import type { MockState, PendingChanges } from '../model/database.ts'
import type { Credentials, Dataset } from '../model/dataset.ts'
import { apiKeyRecord, organisationSlice } from '../model/declared-data.ts'
import type { ResolvedMockApiOptions } from '../options/mock-api-options.ts'
import { StateFile, StateFileError, StateFileInDoubt, StateFileStopped } from './state-file.ts'

/** A {@link StateStore} over a state file, closed with the server. */
export interface StateFileStore extends StateStore {
  /**
   * Makes the changes of several operations durable in one transaction, all or none, or throws:
   * group commit (see `StateFile.commitGroup`). Every one of those operations then answers 500
   * and is taken back in memory, the latest first.
   */
  commitGroup(operations: readonly PendingChanges['writes'][]): void
  close(): void
}

/**
 * Keeps the mock's records in the state file at `path`. A new file starts from the seeded data;
 * an existing one is the state to start from, with the `organisations` given on the command line
 * (`--org`, `--api-key`) and those of the data file `data` (`--data`) applied on top: an
 * organisation the file lacks is added with its seeded and declared records, one it holds keeps
 * its records as the file has them, and every key given opens its organisation. A `userId` the
 * data file gives that a user of the state holds is refused with a {@link StateFileError}.
 */
export function createStateFileStore(
  path: string,
  data?: ResolvedDataFile,
  warn: (message: string) => void = (message) =>
    process.stderr.write(`identify-api-mock: ${message}\n`),
): StateFileStore {
  // One line a second of each kind, and a count of the rest: a failing disk fails every group.
  const say = rateLimitedLines(warn)
  let file: StateFile | undefined
  const write = (what: string, task: (file: StateFile) => void, outcome = 'it answers') => {
    if (!file) throw new Error(`${path} is not open`)
    try {
      task(file)
    } catch (error) {
      const { message } = error as Error
      if (error instanceof StateFileStopped) {
        say(
          `${what} was not written to ${path}, which takes no writes since a commit failed and could not be put right: ${outcome} 503 and changes nothing (restart the server to load what the file holds)`,
        )
        throw new ApiError('serviceUnavailable')
      }
      if (error instanceof StateFileInDoubt) {
        say(
          `could not write ${what} to ${path} (${message}), nor put the file right after it (${(error.cause as Error).message}): whether it was written is known only when the file is read again; ${outcome} 503, and so does every change until the server is restarted`,
        )
        throw new ApiError('serviceUnavailable')
      }
      say(`could not write ${what} to ${path} (${message}): ${outcome} 500 and changes nothing`)
      throw error
    }
  }
  return {
    open(seeded, keys, organisations) {
      const opened = StateFile.open(path)
      file = opened
      if (opened.repaired) {
        warn(
          `${path} had index entries that did not match its records (SQLite's full check): the index was rebuilt from the records before anything was read`,
        )
      }
      try {
        if (!opened.loaded) {
          if (opened.interrupted) {
            warn(
              `${path} holds no complete state: a first start was stopped while it wrote the seed; it starts from the seed now`,
            )
          }
          const dataset = seeded()
          opened.replace(dataset.state)
          return dataset
        }
        const state = opened.read()
        if (data) refuseHeldUserIds(state, data)
        const added = [...organisations, ...(data?.organisations ?? [])]
        if (applyOrganisations(state, seeded, added)) opened.replace(state)
        return { state, credentials: credentialsOf(state, keys) }
      } catch (error) {
        opened.close()
        throw error instanceof StateFileError
          ? error
          : new StateFileError(`cannot use ${path} as a state file: ${(error as Error).message}`)
      }
    },
    commit: (writes) => write('a call', (f) => f.commit(writes)),
    commitGroup: (operations) =>
      operations.length === 1
        ? write('a call', (f) => f.commitGroup(operations))
        : write(
            `${operations.length} calls committed together`,
            (f) => f.commitGroup(operations),
            'each answers',
          ),
    replace: (state) => write('the reset', (f) => f.replace(state)),
    close: () => file?.close(),
  }
}

/**
 * Throws when a user of `data`, in an organisation `state` lacks (which is added from the file),
 * gives a `userId` a user of `state` holds: a `userId` is held by one user at every moment.
 */
function refuseHeldUserIds(state: MockState, data: ResolvedDataFile): void {
  const orgIds = new Set(state.organisations.map((o) => o.orgId))
  const held = new Set(state.users.map((u) => u.userId))
  data.users.forEach((user, i) => {
    if (user.userId === undefined || orgIds.has(user.orgId) || !held.has(user.userId)) return
    throw new StateFileError(
      `the data file's ${jsonPath(['users', i, 'userId'])}: a user of the state file has this userId`,
    )
  })
}

/** Adds what `organisations` name and `state` lacks; whether anything was added. */
function applyOrganisations(
  state: MockState,
  seeded: () => Dataset,
  organisations: readonly Pick<
    ResolvedMockApiOptions['organisations'][number],
    'orgId' | 'apiKeys'
  >[],
): boolean {
  let changed = false
  // The seed's records, drawn only if an organisation is added.
  let seed: MockState | undefined
  for (const { orgId, apiKeys } of organisations) {
    if (!state.organisations.some((o) => o.orgId === orgId)) {
      changed = true
      seed ??= seeded().state
      addOrganisation(state, seed, orgId)
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
  const taken = new Set([
    ...state.users.map((u) => u.userId),
    ...state.certificates.map((c) => c.certificateId),
  ])
  const fresh = new Map<string, string>()
  const own = (id: string, make: () => string) => {
    if (!taken.has(id)) return id
    if (!fresh.has(id)) fresh.set(id, make())
    return fresh.get(id) as string
  }
  const slice = organisationSlice(seeded, orgId)
  for (const name of collectionNames) {
    for (const record of slice[name] as Record<string, unknown>[]) {
      const copy = structuredClone(record)
      if (typeof copy.userId === 'string') copy.userId = own(copy.userId, randomUUID)
      if (typeof copy.certificateId === 'string') {
        copy.certificateId = own(copy.certificateId, () => `cert-${randomUUID().slice(0, 8)}`)
      }
      ;(state[name] as unknown[]).push(copy)
    }
  }
}

/**
 * The credentials that open `state`: of the keys the server was given (seeded or on the command
 * line), those the state holds. An organisation whose keys the file holds only as hashes is
 * listed without a key.
 */
function credentialsOf(state: MockState, given: readonly Credentials[]): Credentials[] {
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
