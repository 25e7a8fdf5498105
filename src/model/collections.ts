import type * as z from 'zod'
import {
  apiKeyRecordSchema,
  certificateRecordSchema,
  clockRecordSchema,
  learningPathRecordSchema,
  learningProgressRecordSchema,
  organisationLatencyRecordSchema,
  organisationRecordSchema,
  organisationShapesRecordSchema,
  organisationSnapshotRecordSchema,
  organisationStartRecordSchema,
  signInTokenRecordSchema,
  userGroupRecordSchema,
  userRecordSchema,
  userShapeRecordSchema,
  webViewSessionRecordSchema,
} from './records.ts'

/**
 * Every collection of the mock, described once: its record schema, the fields of its natural key
 * (what a state file matches a later change of the record by), for the records that belong to a
 * user `ofUser` (a deleted user's records are removed from those; its groups stay), and for the
 * short-lived credentials `credential` (kept in a `CredentialStore` by their key, the hash of
 * their secret, rather than in an `@msw/data` collection: docs/decisions/credential-store.md). The
 * `Collections`, the stores, the state and its schema, the state file's keys and the delete cascade
 * are read from here, in this order.
 */
export const collectionTable = describeCollections({
  organisations: { schema: organisationRecordSchema, key: ['orgId'] },
  apiKeys: { schema: apiKeyRecordSchema, key: ['keyHash'] },
  users: { schema: userRecordSchema, key: ['userId'] },
  userGroups: { schema: userGroupRecordSchema, key: ['orgId', 'groupId'] },
  learningPaths: { schema: learningPathRecordSchema, key: ['orgId', 'learningPathId'] },
  learningProgress: { schema: learningProgressRecordSchema, key: ['userId'], ofUser: true },
  certificates: { schema: certificateRecordSchema, key: ['certificateId'], ofUser: true },
  signInTokens: {
    schema: signInTokenRecordSchema,
    key: ['tokenHash'],
    ofUser: true,
    credential: true,
  },
  webViewSessions: {
    schema: webViewSessionRecordSchema,
    key: ['sessionHash'],
    ofUser: true,
    credential: true,
  },
  organisationStarts: { schema: organisationStartRecordSchema, key: ['orgId'] },
  organisationShapes: { schema: organisationShapesRecordSchema, key: ['orgId'] },
  userShapes: { schema: userShapeRecordSchema, key: ['userId'], ofUser: true },
  organisationLatencies: { schema: organisationLatencyRecordSchema, key: ['orgId'] },
  clocks: { schema: clockRecordSchema, key: ['orgId'] },
  organisationSnapshots: { schema: organisationSnapshotRecordSchema, key: ['orgId', 'name'] },
})

/** What {@link collectionTable} says of one collection. */
interface CollectionDescription<S extends z.ZodObject> {
  schema: S
  /** One field, or an organisation's id and the record's own id within it. */
  key: readonly [FieldOf<S>] | readonly ['orgId', FieldOf<S>]
  ofUser?: true
  credential?: true
}

type FieldOf<S extends z.ZodObject> = keyof z.output<S> & string

/** The table as written, each key checked against the fields of its collection's schema. */
function describeCollections<
  const T extends {
    [C in keyof T]: T[C] extends { schema: infer S extends z.ZodObject }
      ? CollectionDescription<S>
      : never
  },
>(table: T): T {
  return table
}

export type CollectionName = keyof typeof collectionTable

/** The record schema of collection `C`. */
export type RecordSchemaOf<C extends CollectionName> = (typeof collectionTable)[C]['schema']

/** The collections whose records belong to a user, by their `userId`. */
export type UserCollectionName = {
  [C in CollectionName]: (typeof collectionTable)[C] extends { ofUser: true } ? C : never
}[CollectionName]

/** The collections of short-lived credentials, each kept in a `CredentialStore`. */
export type CredentialCollectionName = {
  [C in CollectionName]: (typeof collectionTable)[C] extends { credential: true } ? C : never
}[CollectionName]

/** The collections of the model a test reads and seeds: each an `@msw/data` collection. */
export type ModelCollectionName = Exclude<CollectionName, CredentialCollectionName>

export const collectionNames = Object.keys(collectionTable) as CollectionName[]

export const modelCollectionNames = collectionNames.filter(
  (name): name is ModelCollectionName => !('credential' in collectionTable[name]),
)

export const userCollectionNames = collectionNames.filter(
  (name): name is UserCollectionName => 'ofUser' in collectionTable[name],
)

/**
 * An object with one value for each collection, made by `make`: `T` says what each value is
 * (TypeScript cannot tie a value to its collection's name through a union of names).
 */
export function forEachCollection<T extends { [C in CollectionName]: unknown }>(
  make: (name: CollectionName) => unknown,
): T {
  return Object.fromEntries(collectionNames.map((name) => [name, make(name)])) as T
}

/** Whether the records of collection `name` carry their organisation's `orgId`. */
export function hasOrgId(name: CollectionName): boolean {
  return 'orgId' in collectionTable[name].schema.shape
}
