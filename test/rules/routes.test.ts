import { describe, expect, it } from 'vitest'
import { ApiError } from '../../src/base/errors.ts'
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
