import { GroupIndex, orgKey, UniqueIndex } from './indexes.ts'
import { PartitionedCollection } from './partitioned-collection.ts'
import {
  type ApiKeyRecord,
  apiKeyRecordSchema,
  type CertificateRecord,
  certificateRecordSchema,
  type LearningPathRecord,
  type LearningProgressRecord,
  learningPathRecordSchema,
  learningProgressRecordSchema,
  type OrganisationRecord,
  organisationRecordSchema,
  type SignInTokenRecord,
  signInTokenRecordSchema,
  type UserGroupRecord,
  type UserRecord,
  userGroupRecordSchema,
  userRecordSchema,
  type WebViewSessionRecord,
  webViewSessionRecordSchema,
} from './records.ts'

/**
 * The `@msw/data` collections that hold every record of the mock. A consumer may read them with
 * `@msw/data`'s query API and seed them with `create`. Each is partitioned (see
 * {@link PartitionedCollection}) so that a write costs the same at any size.
 *
 * @example
 * const archived = api.db.users.findMany((q) => q.where({ registrationStatus: 'archived' }))
 */
export function createCollections() {
  return {
    organisations: new PartitionedCollection({ schema: organisationRecordSchema }),
    apiKeys: new PartitionedCollection({ schema: apiKeyRecordSchema }),
    users: new PartitionedCollection({ schema: userRecordSchema }),
    userGroups: new PartitionedCollection({ schema: userGroupRecordSchema }),
    learningPaths: new PartitionedCollection({ schema: learningPathRecordSchema }),
    learningProgress: new PartitionedCollection({ schema: learningProgressRecordSchema }),
    certificates: new PartitionedCollection({ schema: certificateRecordSchema }),
    signInTokens: new PartitionedCollection({ schema: signInTokenRecordSchema }),
    webViewSessions: new PartitionedCollection({ schema: webViewSessionRecordSchema }),
  }
}

export type Collections = ReturnType<typeof createCollections>

/** Every record of the mock, as plain data: what `state()` returns and a dataset seeds. */
export interface MockState {
  organisations: OrganisationRecord[]
  apiKeys: ApiKeyRecord[]
  users: UserRecord[]
  userGroups: UserGroupRecord[]
  learningPaths: LearningPathRecord[]
  learningProgress: LearningProgressRecord[]
  certificates: CertificateRecord[]
  signInTokens: SignInTokenRecord[]
  webViewSessions: WebViewSessionRecord[]
}

const collectionNames = [
  'organisations',
  'apiKeys',
  'userGroups',
  'learningPaths',
  'users',
  'learningProgress',
  'certificates',
  'signInTokens',
  'webViewSessions',
] as const satisfies ReadonlyArray<keyof MockState & keyof Collections>

/**
 * The collections with the indexes the rules look records up by, so that no lookup by
 * `(orgId, id)`, key, token or user scans a collection. A reset builds a new `Database`
 * rather than clearing this one.
 */
export class Database {
  readonly collections: Collections = createCollections()
  readonly organisations = new UniqueIndex(this.collections.organisations, (r) => r.orgId)
  readonly apiKeys = new UniqueIndex(this.collections.apiKeys, (r) => r.keyHash)
  readonly users = new UniqueIndex(this.collections.users, (r) => orgKey(r.orgId, r.id))
  readonly usersByUserId = new UniqueIndex(this.collections.users, (r) => r.userId)
  readonly userGroups = new UniqueIndex(this.collections.userGroups, (r) =>
    orgKey(r.orgId, r.groupId),
  )
  readonly learningPaths = new UniqueIndex(this.collections.learningPaths, (r) =>
    orgKey(r.orgId, r.learningPathId),
  )
  readonly learningProgress = new UniqueIndex(this.collections.learningProgress, (r) => r.userId)
  readonly certificates = new GroupIndex(this.collections.certificates, (r) => r.userId)
  readonly signInTokens = new UniqueIndex(this.collections.signInTokens, (r) => r.tokenHash)
  readonly signInTokensByUserId = new GroupIndex(this.collections.signInTokens, (r) => r.userId)
  readonly webViewSessions = new UniqueIndex(this.collections.webViewSessions, (r) => r.sessionHash)
  readonly webViewSessionsByUserId = new GroupIndex(
    this.collections.webViewSessions,
    (r) => r.userId,
  )

  /**
   * Creates every record of `state`, each validated by its collection's schema, unless
   * `validated` says they already were (a reset reloading the records the first load accepted).
   */
  async load(state: Partial<MockState>, { validated = false } = {}): Promise<void> {
    for (const name of collectionNames) {
      const collection = this.collections[name] as PartitionedCollection<never>
      for (const record of state[name] ?? []) {
        await (validated
          ? collection.createValidated(record as never)
          : collection.create(record as never))
      }
    }
  }

  /** A deep, plain copy of every record, one array per collection. */
  snapshot(): MockState {
    const copy = <T>(collection: { all(): T[] }) => collection.all().map((r) => structuredClone(r))
    const c = this.collections
    return {
      organisations: copy(c.organisations),
      apiKeys: copy(c.apiKeys),
      users: copy(c.users),
      userGroups: copy(c.userGroups),
      learningPaths: copy(c.learningPaths),
      learningProgress: copy(c.learningProgress),
      certificates: copy(c.certificates),
      signInTokens: copy(c.signInTokens),
      webViewSessions: copy(c.webViewSessions),
    }
  }
}
