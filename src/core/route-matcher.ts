import { ApiError } from '../base/errors.ts'
import { allowHeader } from '../base/wire.ts'

/** A route of a table: a method and a path whose `:name` segments are parameters. */
export interface Route {
  readonly method: string
  readonly path: string
}

/**
 * The matcher of a route table: the route of `method` and `pathname` (as sent, still
 * percent-encoded) and its parameters, percent-decoded once. A path no route has, an empty
 * parameter or one that is not valid percent-encoding is a 404 `Not found`; a known path with
 * another method is a 405 with `Allow` (`HEAD` wherever `GET` is). `HEAD` is answered by the `GET`
 * route of its path. A static segment beats a parameter, whatever the table's order: of the
 * paths that match, only the most specific answers (as stripe-mock orders `/v1/invoices/upcoming`
 * before `/v1/invoices/:invoice`), so `GET /users/identify` stays a 405 beside a `GET /users/:id`.
 * `methodsAt` lists a path's methods.
 *
 * @example
 * const match = createRouteMatcher([{ method: 'DELETE', path: '/things/:id' }])
 * match('DELETE', '/things/a%2Fb') // { route, params: { id: 'a/b' } }
 */
export function createRouteMatcher<R extends Route>(table: readonly R[]) {
  const compiled = table.map((route) => {
    const segments = route.path.split('/')
    return { route, segments, rank: segments.map((segment) => !segment.startsWith(':')) }
  })
  const matchAll = (pathname: string) => {
    const segments = pathname.split('/')
    const found = compiled.flatMap(({ route, segments: pattern, rank }) => {
      const params = matchSegments(pattern, segments)
      return params ? [{ route, params, rank }] : []
    })
    const best = found.reduce<boolean[] | undefined>(
      (top, { rank }) => (top === undefined || moreSpecific(rank, top) ? rank : top),
      undefined,
    )
    return found.flatMap(({ route, params, rank }) =>
      best && !moreSpecific(best, rank) ? [{ route, params }] : [],
    )
  }
  // A path without parameters matches the same routes every time: looked up in a table built
  // once, not split and compared per call. Kept only when no route gives it a parameter, so that
  // no two calls share a parameters object.
  const fixed = new Map(
    table.flatMap(({ path }) => {
      const found = matchAll(path)
      const bare = found.every(({ params }) => Object.keys(params).length === 0)
      return bare
        ? [[path, found.map((hit) => Object.freeze({ ...hit, params: Object.freeze({}) }))]]
        : []
    }),
  )
  const routesAt = (pathname: string) => fixed.get(pathname) ?? matchAll(pathname)
  const methodsAt = (pathname: string) => [
    ...new Set(routesAt(pathname).map(({ route }) => route.method)),
  ]
  const match = (
    method: string,
    pathname: string,
  ): { route: R; params: Record<string, string> } => {
    const found = routesAt(pathname)
    const exact = found.find(({ route }) => route.method === method)
    const asGet = method === 'HEAD' ? found.find(({ route }) => route.method === 'GET') : undefined
    const hit = exact ?? asGet
    if (hit) return hit
    if (found.length > 0) {
      const methods = [...new Set(found.map(({ route }) => route.method))]
      throw new ApiError('methodNotAllowed', { headers: { allow: allowHeader(methods) } })
    }
    throw new ApiError('notFound')
  }
  return Object.assign(match, { methodsAt })
}

/**
 * Whether a path whose segments are static where `a` is true beats one ranked `b`: at the first
 * segment where they differ, `a`'s is static and `b`'s a parameter. Two paths of one length that
 * match the same request and are static in the same places are equally specific.
 */
function moreSpecific(a: readonly boolean[], b: readonly boolean[]): boolean {
  const at = a.findIndex((fixed, i) => fixed !== b[i])
  return at !== -1 && a[at] === true
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

/**
 * A path segment percent-decoded once; `undefined` when it is not valid percent-encoding.
 *
 * @example decodeSegment('a%2Fb') // 'a/b'
 */
export function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment)
  } catch {
    return undefined
  }
}
