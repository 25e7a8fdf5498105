import { ApiError } from './errors.ts'
import type { Operation } from './faults.ts'

/** The API's route table: the only place that knows its paths. */
export const apiRoutes = [
  { method: 'POST', path: '/api/v1/users/identify', operation: 'identify' },
  { method: 'DELETE', path: '/api/v1/users/:orgId/:id', operation: 'delete' },
] as const satisfies ReadonlyArray<{ method: string; path: string; operation: Operation }>

export interface RouteMatch {
  operation: Operation
  params: Record<string, string>
}

const compiled = apiRoutes.map((route) => ({ ...route, segments: route.path.split('/') }))

/**
 * The route of `method` and `pathname` (as sent, still percent-encoded). Parameters are
 * percent-decoded once. A path no route has, an empty parameter or one that is not valid
 * percent-encoding is a 404 `Not found`; a known path with another method is a 405 with `Allow`.
 *
 * @example matchRoute('DELETE', '/api/v1/users/org-1/a%2Fb') // params: { orgId: 'org-1', id: 'a/b' }
 */
export function matchRoute(method: string, pathname: string): RouteMatch {
  const found = routesAt(pathname)
  const match = found.find(({ route }) => route.method === method)
  if (match) return { operation: match.route.operation, params: match.params }
  if (found.length > 0) {
    throw new ApiError('methodNotAllowed', {
      allow: found.map(({ route }) => route.method).join(', '),
    })
  }
  throw new ApiError('notFound')
}

/**
 * The methods the API answers at `pathname` (still percent-encoded); none when no route has it.
 *
 * @example methodsAt('/api/v1/users/identify') // ['POST']
 */
export function methodsAt(pathname: string): string[] {
  return routesAt(pathname).map(({ route }) => route.method)
}

function routesAt(pathname: string) {
  const segments = pathname.split('/')
  return compiled.flatMap((route) => {
    const params = matchSegments(route.segments, segments)
    return params ? [{ route, params }] : []
  })
}

function matchSegments(pattern: readonly string[], segments: readonly string[]) {
  if (pattern.length !== segments.length) return undefined
  const params: Record<string, string> = {}
  for (let i = 0; i < pattern.length; i++) {
    const expected = pattern[i] as string
    const actual = segments[i] as string
    if (!expected.startsWith(':')) {
      if (expected !== actual) return undefined
      continue
    }
    const value = decodeSegment(actual)
    if (!value) return undefined
    params[expected.slice(1)] = value
  }
  return params
}

function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment)
  } catch {
    return undefined
  }
}
