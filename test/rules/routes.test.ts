import { describe, expect, it } from 'vitest'
import { ApiError } from '../../src/base/errors.ts'
import { createRouteMatcher } from '../../src/core/route-matcher.ts'
import { matchRoute } from '../../src/core/routes.ts'

function errorOf(run: () => unknown) {
  try {
    run()
  } catch (error) {
    if (error instanceof ApiError) return { code: error.code, headers: error.headers }
  }
  throw new Error('expected an ApiError')
}

describe('matchRoute', () => {
  it('matches the two operations and percent-decodes parameters once', () => {
    expect(matchRoute('POST', '/api/v1/users/identify')).toEqual({
      operation: 'identify',
      params: {},
    })
    expect(matchRoute('DELETE', '/api/v1/users/org%201/a%252F')).toEqual({
      operation: 'delete',
      params: { orgId: 'org 1', id: 'a%2F' },
    })
  })

  it('answers 405 with the allowed methods for a known path', () => {
    expect(errorOf(() => matchRoute('GET', '/api/v1/users/identify'))).toEqual({
      code: 'methodNotAllowed',
      headers: { allow: 'POST' },
    })
    expect(errorOf(() => matchRoute('DELETE', '/api/v1/users/identify'))).toMatchObject({
      headers: { allow: 'POST' },
    })
  })

  it('answers 404 for unknown paths, empty segments and bad percent-encoding', () => {
    for (const path of [
      '/api',
      '/api/v1/users/identify/',
      '/api/v1/users/a/',
      '/api/v1/users/%E0%A4%A/x',
    ]) {
      expect(errorOf(() => matchRoute('DELETE', path)).code).toBe('notFound')
    }
  })
})

describe('createRouteMatcher', () => {
  const identify = { method: 'POST', path: '/api/v1/users/identify' }
  const lookUp = { method: 'GET', path: '/api/v1/users/:id' }
  const remove = { method: 'DELETE', path: '/api/v1/users/:orgId/:id' }

  it('lets a static segment beat a parameter, in either order of the table', () => {
    for (const table of [
      [identify, lookUp, remove],
      [lookUp, remove, identify],
    ]) {
      const match = createRouteMatcher(table)
      expect(errorOf(() => match('GET', '/api/v1/users/identify'))).toEqual({
        code: 'methodNotAllowed',
        headers: { allow: 'POST' },
      })
      expect(match.methodsAt('/api/v1/users/identify')).toEqual(['POST'])
      expect(match('POST', '/api/v1/users/identify')).toEqual({ route: identify, params: {} })
      expect(match('GET', '/api/v1/users/ada')).toEqual({ route: lookUp, params: { id: 'ada' } })
      expect(match('DELETE', '/api/v1/users/acme/identify')).toEqual({
        route: remove,
        params: { orgId: 'acme', id: 'identify' },
      })
    }
  })

  it('decides at the first segment where two paths differ', () => {
    const early = { method: 'GET', path: '/things/fixed/:x' }
    const late = { method: 'PUT', path: '/things/:y/fixed' }
    const match = createRouteMatcher([late, early])
    expect(match.methodsAt('/things/fixed/fixed')).toEqual(['GET'])
    expect(match('PUT', '/things/other/fixed')).toEqual({ route: late, params: { y: 'other' } })
  })
})
