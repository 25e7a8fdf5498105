import * as z from 'zod'

/** The most snapshots one organisation keeps at once. */
export const maxSnapshotsPerOrganisation = 16

/**
 * A snapshot's name: 1 to 64 characters of `A-Z a-z 0-9 . _ -` (it travels in a path).
 *
 * @example snapshotNameSchema.parse('ten-users.v2')
 */
export const snapshotNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9._-]{1,64}$/, 'a snapshot name is 1 to 64 characters of A-Z a-z 0-9 . _ -')

/**
 * A snapshot as the controls show it: its name, when it was saved (the real clock), how many users
 * it holds and its size (the JSON of what it holds, in characters, counted in `maxStateBytes`).
 *
 * @example snapshotSchema.parse({ name: 'ten-users', createdAt: '2030-01-01T00:00:00.000Z', users: 10, bytes: 5120 })
 */
export const snapshotSchema = z.strictObject({
  name: z.string(),
  createdAt: z.string().describe('ISO 8601, on the real clock'),
  users: z.int().min(0),
  bytes: z.int().min(0).describe('the JSON size of what it holds, counted in maxStateBytes'),
})

export type Snapshot = z.output<typeof snapshotSchema>

/**
 * Where a fork starts: organisation `orgId`'s snapshot `snapshot`.
 *
 * @example snapshotSourceSchema.parse({ orgId: 'tenant-a', snapshot: 'ten-users' })
 */
export const snapshotSourceSchema = z.strictObject({
  orgId: z.string().min(1).max(1024),
  snapshot: snapshotNameSchema,
})

export type SnapshotSource = z.output<typeof snapshotSourceSchema>
