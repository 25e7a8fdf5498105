import { apiRouteOf } from '../core/routes.ts'
import type { ResolvedVerifyOptions } from './verify-options.ts'

/** The names and values one run works with; every id but `orgId` is made up for the run. */
export interface RunContext {
  orgId: string
  otherOrgId: string
  /** The throwaway user: the only user the run writes. */
  userId: string
  /** An id no one identified, for the 404 row. */
  absentId: string
  /** A key no one was given, for the 401 row. */
  unknownKey: string
  groups: string[]
}

/** How a step authenticates: with the key, the key under a lower-case scheme, another key, none. */
export type StepAuth = 'key' | 'lowercase-scheme' | 'unknown-key' | 'none'

/** One request of the run, in the order sent. */
export interface Step {
  name: StepName
  method: 'GET' | 'POST' | 'DELETE'
  path: string
  auth: StepAuth
  body?: Record<string, unknown>
  /** Why the step is sent, for `--dry-run`. */
  purpose: string
}

export type StepName =
  | 'create'
  | 'update'
  | 'regroup'
  | 'lowercaseScheme'
  | 'invalidEnum'
  | 'unknownField'
  | 'otherOrgIdentify'
  | 'missingKey'
  | 'unknownKey'
  | 'wrongMethod'
  | 'unknownPath'
  | 'otherOrgDelete'
  | 'absentDelete'
  | 'delete'
  | 'deleteAgain'

/** What the first identify sends in `data` (without `userGroups`): the rows compare against it. */
export const createdProfile = {
  firstName: 'Verify',
  lastName: 'Throwaway',
  country: 'Nowhere',
  sex: 'female',
  ageBracket: '25-34',
} as const

/** What the second identify sends in `data`; the rest of {@link createdProfile} is omitted. */
export const updatedProfile = { firstName: 'Verified', region: 'Nowhere Region' } as const

const identifyRoute = apiRouteOf('identify')
const deleteRoute = apiRouteOf('delete')

/** The path of the delete route for `orgId` and `id`, percent-encoded. */
export function deletePath(orgId: string, id: string): string {
  return deleteRoute.path
    .replace(':orgId', encodeURIComponent(orgId))
    .replace(':id', encodeURIComponent(id))
}

/**
 * The run's requests, in order: 15, all about the throwaway user or an id that cannot exist.
 * The first creates the user; the last two delete it and check it is gone.
 *
 * @example
 * planSteps(createRunContext(options)).map((step) => `${step.method} ${step.path}`)
 */
export function planSteps(ctx: RunContext): Step[] {
  const identify = { method: identifyRoute.method, path: identifyRoute.path }
  const user = { id: ctx.userId, orgId: ctx.orgId }
  const [firstGroup] = ctx.groups
  const sentGroups = firstGroup === undefined ? [] : [...ctx.groups, firstGroup]
  return [
    {
      name: 'create',
      ...identify,
      auth: 'key',
      body: { ...user, data: { ...createdProfile, userGroups: sentGroups } },
      purpose: 'create the throwaway user',
    },
    {
      name: 'update',
      ...identify,
      auth: 'key',
      body: { ...user, data: updatedProfile },
      purpose: 'update it, omitting most fields',
    },
    {
      name: 'regroup',
      ...identify,
      auth: 'key',
      body: { ...user, data: { userGroups: ctx.groups.slice(1, 2) } },
      purpose: 'replace its user groups',
    },
    {
      name: 'lowercaseScheme',
      ...identify,
      auth: 'lowercase-scheme',
      body: user,
      purpose: 'identify it with the scheme written "bearer"',
    },
    {
      name: 'invalidEnum',
      ...identify,
      auth: 'key',
      body: { ...user, data: { sex: 'verify-not-a-sex' } },
      purpose: 'a body with sex outside its enumeration',
    },
    {
      name: 'unknownField',
      ...identify,
      auth: 'key',
      body: { ...user, verify: true },
      purpose: 'a body with a field IdentifyUserRequest does not have',
    },
    {
      name: 'otherOrgIdentify',
      ...identify,
      auth: 'key',
      body: { id: ctx.userId, orgId: ctx.otherOrgId },
      purpose: 'identify in an organisation the key does not belong to',
    },
    {
      name: 'missingKey',
      ...identify,
      auth: 'none',
      body: user,
      purpose: 'identify without Authorization',
    },
    {
      name: 'unknownKey',
      ...identify,
      auth: 'unknown-key',
      body: user,
      purpose: 'identify with a key no one was given',
    },
    {
      name: 'wrongMethod',
      method: 'GET',
      path: identifyRoute.path,
      auth: 'key',
      purpose: 'the identify path with another method',
    },
    {
      name: 'unknownPath',
      method: 'GET',
      path: `/api/v1/${encodeURIComponent(ctx.absentId)}`,
      auth: 'key',
      purpose: 'a path the API does not have',
    },
    {
      name: 'otherOrgDelete',
      method: deleteRoute.method,
      path: deletePath(ctx.otherOrgId, ctx.userId),
      auth: 'key',
      purpose: 'delete in an organisation the key does not belong to',
    },
    {
      name: 'absentDelete',
      method: deleteRoute.method,
      path: deletePath(ctx.orgId, ctx.absentId),
      auth: 'key',
      purpose: 'delete an id that cannot exist',
    },
    {
      name: 'delete',
      method: deleteRoute.method,
      path: deletePath(ctx.orgId, ctx.userId),
      auth: 'key',
      purpose: 'delete the throwaway user',
    },
    {
      name: 'deleteAgain',
      method: deleteRoute.method,
      path: deletePath(ctx.orgId, ctx.userId),
      auth: 'key',
      purpose: 'delete it again',
    },
  ]
}

/** A random part of an id: 128 bits, as hex, from the platform's cryptographic source. */
function randomPart(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16))
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')
}

/**
 * The names one run uses: a throwaway user `<prefix><random>`, and made-up ids for the other
 * organisation (unless given), the absent user and the unknown key.
 *
 * @example
 * createRunContext(resolveVerifyOptions({ baseUrl, apiKey, orgId: 'acme' })).userId // 'verify-3f…'
 */
export function createRunContext(
  options: Pick<ResolvedVerifyOptions, 'orgId' | 'otherOrgId' | 'userIdPrefix' | 'groups'>,
): RunContext {
  return {
    orgId: options.orgId,
    otherOrgId: options.otherOrgId ?? `verify-other-org-${randomPart()}`,
    userId: `${options.userIdPrefix}${randomPart()}`,
    absentId: `verify-absent-${randomPart()}`,
    unknownKey: `verify-unknown-key-${randomPart()}`,
    groups: [...new Set(options.groups)],
  }
}
