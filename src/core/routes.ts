import {
  deleteUserResponseSchema,
  identifyUserRequestSchema,
  identifyUserResponseSchema,
} from '../api/api-schemas.ts'
import { deleteUser } from '../rules/delete-user.ts'
import { identifyUser } from '../rules/identify.ts'
import { apiRoute } from './api-route.ts'
import { createRouteMatcher } from './route-matcher.ts'

/**
 * The API's route table: the only place that knows its routes. Matching, 404/405 and `Allow`,
 * the operations and their fault statuses, the journal's calls, the MSW handlers and the
 * OpenAPI paths are all read from it.
 */
export const apiRoutes = [
  apiRoute({
    method: 'POST',
    path: '/api/v1/users/identify',
    operation: 'identify',
    body: identifyUserRequestSchema,
    response: identifyUserResponseSchema,
    errors: ['invalidRequest', 'forbidden', 'internal'],
    successes: {
      created: 'a user created, with its first sign-in token',
      updated: 'a known user updated, with a new sign-in token',
    },
    run: identifyUser,
    // Identify's answer carries a sign-in token: no cache may keep it, nor any of its answers.
    headers: { 'cache-control': 'no-store' },
    doc: {
      operationId: 'identifyUser',
      summary: 'Identify a user',
      description:
        'Creates the user on the first call for its id, otherwise applies the profile data sent; always returns a new sign-in token, for immediate use.',
      ok: "The user's profile and a new sign-in token.",
    },
  }),
  apiRoute({
    method: 'DELETE',
    path: '/api/v1/users/:orgId/:id',
    operation: 'delete',
    response: deleteUserResponseSchema,
    errors: ['forbidden', 'userNotFound', 'internal'],
    run: (ctx, orgId, target) => ({ body: deleteUser(ctx, orgId, target) }),
    doc: {
      operationId: 'deleteUser',
      summary: 'Delete a user',
      description:
        'Permanently removes the user: account, learning progress, certificates and profile data.',
      ok: 'The user was deleted.',
    },
  }),
] as const

/** A row of {@link apiRoutes}. */
export type ApiRoute = (typeof apiRoutes)[number]

/** The API's operations, by name. */
export type Operation = ApiRoute['operation']

/**
 * The row of {@link apiRoutes} for `operation`: read a route by what it does, never by its place
 * in the table (a row inserted above another would change what a position means).
 *
 * @example apiRouteOf('delete').method // 'DELETE'
 */
export function apiRouteOf<O extends Operation>(operation: O): Extract<ApiRoute, { operation: O }> {
  return apiRoutes.find((row) => row.operation === operation) as Extract<ApiRoute, { operation: O }>
}

/** An API call as the journal keeps it: an operation and what it asked. */
export type ApiCall = ReturnType<ApiRoute['begin']>['call']

/**
 * The first segment of every API path, with a slash: the MSW handlers answer everything below it.
 *
 * @example apiPrefixes // ['/api']
 */
export const apiPrefixes = [...new Set(apiRoutes.map(({ path }) => `/${path.split('/')[1]}`))]

/**
 * The API route of `method` and `pathname` and its parameters, as `createRouteMatcher` matches
 * them: a 404 or 405 `ApiError` otherwise.
 *
 * @example matchApiRoute('DELETE', '/api/v1/users/org-1/u-1').route.operation // 'delete'
 */
export const matchApiRoute = createRouteMatcher<ApiRoute>(apiRoutes)

/**
 * The operation of `method` and `pathname` and its parameters, percent-decoded once.
 *
 * @example matchRoute('DELETE', '/api/v1/users/org-1/a%2Fb') // params: { orgId: 'org-1', id: 'a/b' }
 */
export function matchRoute(
  method: string,
  pathname: string,
): { operation: Operation; params: Record<string, string> } {
  const { route, params } = matchApiRoute(method, pathname)
  return { operation: route.operation, params }
}

/**
 * The methods the API answers at `pathname` (still percent-encoded); none when no route has it.
 *
 * @example methodsAt('/api/v1/users/identify') // ['POST']
 */
export function methodsAt(pathname: string): string[] {
  return matchApiRoute.methodsAt(pathname)
}
