import { Collection } from '@msw/data'
import { GroupIndex, orgKey, UniqueIndex } from './indexes.ts'
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
 * `@msw/data`'s query API and seed them with `create`.
 *
 * @example
 * const archived = api.db.users.findMany((q) => q.where({ registrationStatus: 'archived' }))
 */
export function createCollections() {
  return {
    organisations: new Collection({ schema: organisationRecordSchema }),
    apiKeys: new Collection({ schema: apiKeyRecordSchema }),
    users: new Collection({ schema: userRecordSchema }),
    userGroups: new Collection({ schema: userGroupRecordSchema }),
    learningPaths: new Collection({ schema: learningPathRecordSchema }),
    learningProgress: new Collection({ schema: learningProgressRecordSchema }),
    certificates: new Collection({ schema: certificateRecordSchema }),
    signInTokens: new Collection({ schema: signInTokenRecordSchema }),
    webViewSessions: new Collection({ schema: webViewSessionRecordSchema }),
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

  /** Creates every record of `state`, each validated by its collection's schema. */
  async load(state: Partial<MockState>): Promise<void> {
    for (const name of collectionNames) {
      const collection: Collection<never> = this.collections[name] as never
      for (const record of state[name] ?? []) await collection.create(record as never)
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
