import * as z from 'zod'
import { shapesSchema } from '../api/shape-cases.ts'
import { identifyCurlLine } from '../base/curl-line.ts'
import { packageName } from '../base/package-identity.ts'
import { failureKindNames } from '../core/failure-kinds.ts'
import type { MockCore } from '../core/mock-core.ts'
import { apiRoutes } from '../core/routes.ts'
import { shapesOf } from '../rules/answer-shapes.ts'

// The answers of the controls that no other module declares a schema for.

/**
 * `GET /__mock/health`: that the mock answers, and which mock it is (its package's name and
 * version, and the id of this instance, drawn when it started), so a readiness probe can tell it
 * from another server on the port, and a restarted mock from the one it saw. Nothing else.
 */
export const healthSchema = z.strictObject({
  status: z.literal('ok'),
  name: z.literal(packageName).describe('the package that answers'),
  version: z.string().describe("the package's version"),
  instanceId: z
    .string()
    .describe('drawn at random when this mock started: another start, another id'),
})

export type Health = z.output<typeof healthSchema>

/**
 * Whether `body` (a health answer's JSON) is this mock's: `status` `ok` and the package's `name`
 * (a later version's fields beside them are fine). What every readiness probe of the package
 * checks: a 200 from another server on the port is not the mock.
 *
 * @example isMockHealth(await (await fetch(`${url}/__mock/health`)).json())
 */
export function isMockHealth(body: unknown): boolean {
  const health = body as Partial<Health> | null
  return typeof health === 'object' && health?.status === 'ok' && health.name === packageName
}

/** `GET /__mock/shapes`: the covering set of answer shapes. */
export const shapeCasesSchema = z.strictObject({
  cases: z.array(
    z.strictObject({
      name: z.string(),
      forms: z.record(z.string(), z.string()).describe('the form of each dimension'),
    }),
  ),
})

/** `GET /__mock/failures`: the failure cases. */
export const failureCasesSchema = z.strictObject({
  cases: z.array(
    z.strictObject({
      name: z.string(),
      operation: z.enum(apiRoutes.map((route) => route.operation)),
      kind: z.enum(failureKindNames),
      applied: z.boolean().describe('whether the call takes its whole effect first'),
      status: z.int().optional().describe('of the kinds that take one: status and gateway'),
    }),
  ),
})

/** `GET /__mock/organisations`: the organisations and their keys in clear, as the banner prints them. */
export const organisationListSchema = z.strictObject({
  organisations: z.array(
    z.strictObject({
      orgId: z.string(),
      name: z.string(),
      apiKeys: z.array(z.string()),
      shapes: shapesSchema,
      curl: z.string().nullable().describe('an identify to paste in a shell, with the first key'),
    }),
  ),
  total: z.int().describe('how many organisations the mock has'),
})

export type OrganisationList = z.output<typeof organisationListSchema>

/**
 * The organisations with their API keys in clear, as the banner shows them, the answer shapes each
 * answers in, and a curl line to `origin` (when it is a plain `http://` host, fit for a shell).
 */
export async function listOrganisations(core: MockCore, origin: string): Promise<OrganisationList> {
  const base = /^https?:\/\/[A-Za-z0-9.:[\]-]+$/.test(origin) ? origin : undefined
  const listed = core.credentials.slice(0, core.options.maxOrganisations)
  const shapes = await core.transact((ctx) => listed.map((org) => shapesOf(ctx, org.orgId)))
  const organisations = listed.map((org, i) => ({
    ...org,
    shapes: shapes[i] ?? 'full',
    curl: base && org.apiKeys[0] ? identifyCurlLine(base, org.orgId, org.apiKeys[0]) : null,
  }))
  return { organisations, total: core.credentials.length }
}
