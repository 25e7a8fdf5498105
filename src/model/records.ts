import * as z from 'zod'
import { dateSchema, dateTimeSchema, registrationStatusSchema } from '../api/api-schemas.ts'
import { percentCompleteSchema } from '../api/data-file.ts'
import { latencyOfJson } from '../api/latency.ts'
import { profileFieldsSchema } from '../api/profile-fields.ts'
import { shapeCaseNameSchema, shapesSchema } from '../api/shape-cases.ts'
import { nullableFields } from '../api/shape-views.ts'
import { snapshotNameSchema } from '../api/snapshot-schemas.ts'

/**
 * Whether `a`, the value of a record's field, is `b`: a record's fields are strings, numbers,
 * `null` and arrays of strings, two arrays the same when they hold the same strings in order.
 *
 * @example sameFieldValue(['grp-1'], ['grp-1']) // true
 */
export function sameFieldValue(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/** An organisation: the tenant that API keys and users belong to. */
export const organisationRecordSchema = z.strictObject({
  orgId: z.string().min(1),
  name: z.string(),
})

/** An API key, stored only as its SHA-256 hash: no part of it in clear. */
export const apiKeyRecordSchema = z.strictObject({
  keyHash: z.string(),
  orgId: z.string().min(1),
})

/** A user as stored: the profile fields the API names, every nullable one present. */
export const userRecordSchema = z.strictObject({
  userId: z.string().min(1),
  orgId: z.string().min(1),
  id: z.string().min(1),
  registrationStatus: registrationStatusSchema,
  registeredAt: dateTimeSchema.nullable(),
  lastActive: dateTimeSchema.nullable(),
  ...nullableFields(profileFieldsSchema.shape),
  userGroups: z.array(z.string()),
})

export const userGroupRecordSchema = z.strictObject({
  orgId: z.string().min(1),
  groupId: z.string(),
  name: z.string(),
})

export const learningPathRecordSchema = z.strictObject({
  orgId: z.string().min(1),
  learningPathId: z.string().min(1),
  name: z.string(),
})

/** A user's learning-path assignment and its progress (at most one per user). */
export const learningProgressRecordSchema = z.strictObject({
  userId: z.string().min(1),
  learningPathId: z.string().min(1),
  startDate: dateSchema,
  dueDate: dateSchema.nullable(),
  completedAt: dateTimeSchema.nullable(),
  percentComplete: percentCompleteSchema,
})

export const certificateRecordSchema = z.strictObject({
  certificateId: z.string().min(1),
  userId: z.string().min(1),
  learningPathId: z.string().min(1),
  title: z.string(),
  issuedAt: dateTimeSchema,
})

/** A sign-in token, stored only as its SHA-256 hash. */
export const signInTokenRecordSchema = z.strictObject({
  tokenHash: z.string(),
  userId: z.string().min(1),
  orgId: z.string().min(1),
  issuedAt: dateTimeSchema,
  expiresAt: dateTimeSchema,
  redeemedAt: dateTimeSchema.nullable(),
})

/** A signed-in web view, stored by the hash of its session cookie. */
export const webViewSessionRecordSchema = z.strictObject({
  sessionHash: z.string(),
  userId: z.string().min(1),
  orgId: z.string().min(1),
  createdAt: dateTimeSchema,
})

/**
 * An organisation's own answer shapes (`null`: the mock's), and how many users identify created
 * in it under `varied` (the next one takes the case after theirs). A case is never taken out of
 * the list, so a state file naming one this version lacks (a later version's) is refused at load,
 * the case named, rather than answered in another shape.
 */
export const organisationShapesRecordSchema = z.strictObject({
  orgId: z.string().min(1),
  shapes: shapesSchema.nullable(),
  variedUsers: z.int().min(0),
})

/**
 * An organisation's own latency, which wins over the mock's `latency` option: as JSON text (as an
 * organisation's start is), so that the record is one the derived load check reads.
 */
export const organisationLatencyRecordSchema = z.strictObject({
  orgId: z.string().min(1),
  latency: z
    .string()
    .refine((text) => latencyOfJson(text) !== null, 'expected a latency, as JSON')
    .describe('{"fixedMs":n}, {"uniformMs":[a,b]} or {"medianMs":m,"p99Ms":p}, as JSON text'),
})

/** The case a user identify created under `varied` took, kept for every answer it gets. */
export const userShapeRecordSchema = z.strictObject({
  userId: z.string().min(1),
  shapeCase: shapeCaseNameSchema,
})

/**
 * What an organisation created at run time started with, its records as JSON (keys as hashes
 * only): what a reset of that organisation returns it to.
 */
export const organisationStartRecordSchema = z.strictObject({
  orgId: z.string().min(1),
  records: z.string(),
})

/**
 * A snapshot of an organisation, saved under `name`: its records as JSON (keys, tokens and
 * sessions as hashes only; the organisation's API keys, start and snapshots left out), its
 * settings kept beside the records (queued faults…) as JSON, and what its answer shows (`users`,
 * `bytes`). What a restore puts back and a fork starts from.
 */
export const organisationSnapshotRecordSchema = z.strictObject({
  orgId: z.string().min(1),
  name: snapshotNameSchema,
  createdAt: dateTimeSchema,
  users: z.int().min(0),
  bytes: z.int().min(0),
  records: z.string(),
  settings: z.string(),
})

/**
 * A clock a test controls: an organisation's own (`orgId`), or the mock's (`orgId` `""`, which no
 * organisation can have). Frozen, it reads `at`; running, it read `at` at the real instant `since`
 * and runs on at the real pace. A start declared (by a data file, `POST /__mock/organisations`) has
 * `since` `null` until it is loaded: it runs from the moment its organisation starts, or starts
 * again on a reset.
 */
export const clockRecordSchema = z.strictObject({
  orgId: z.string(),
  mode: z.enum(['frozen', 'running']),
  at: dateTimeSchema,
  since: dateTimeSchema.nullable(),
})

export type OrganisationRecord = z.infer<typeof organisationRecordSchema>
export type ApiKeyRecord = z.infer<typeof apiKeyRecordSchema>
export type UserRecord = z.infer<typeof userRecordSchema>
export type UserGroupRecord = z.infer<typeof userGroupRecordSchema>
export type LearningPathRecord = z.infer<typeof learningPathRecordSchema>
export type LearningProgressRecord = z.infer<typeof learningProgressRecordSchema>
export type CertificateRecord = z.infer<typeof certificateRecordSchema>
export type SignInTokenRecord = z.infer<typeof signInTokenRecordSchema>
export type WebViewSessionRecord = z.infer<typeof webViewSessionRecordSchema>
export type OrganisationShapesRecord = z.infer<typeof organisationShapesRecordSchema>
export type UserShapeRecord = z.infer<typeof userShapeRecordSchema>
export type OrganisationLatencyRecord = z.infer<typeof organisationLatencyRecordSchema>
export type OrganisationStartRecord = z.infer<typeof organisationStartRecordSchema>
export type ClockRecord = z.infer<typeof clockRecordSchema>
export type OrganisationSnapshotRecord = z.infer<typeof organisationSnapshotRecordSchema>
