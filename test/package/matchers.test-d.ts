import 'identify-api-mock/vitest'
import { describe, expect, expectTypeOf, it } from 'vitest'
import type { CallExpectation } from '../../src/matchers/matchers.ts'
import { createMockApi } from '../../src/root/index.ts'

describe('identify-api-mock/vitest', () => {
  const api = createMockApi()

  it('declares toHaveIdentified over a deep partial of the identify body', () => {
    expect(api).toHaveIdentified()
    expect(api).toHaveIdentified({ data: { firstName: expect.any(String) } }, { times: 1 })
    expect(api).not.toHaveIdentified({ id: 'x' }, { status: 200 })
    // @ts-expect-error no such field in the identify body
    expect(api).toHaveIdentified({ userName: 'x' })
    // @ts-expect-error a field of the wrong type
    expect(api).toHaveIdentified({ data: { sex: 'unknown' } })
  })

  it('declares toHaveDeleted over orgId and id', () => {
    expect(api).toHaveDeleted({ orgId: 'acme', id: 'u-1' }, { status: 404 })
    // @ts-expect-error delete has no body
    expect(api).toHaveDeleted({ data: {} })
    // @ts-expect-error times is a number
    expect(api).toHaveDeleted({}, { times: '1' })
  })

  it('takes times and status as numbers, and an organisation', () => {
    expectTypeOf<CallExpectation>().toEqualTypeOf<{
      times?: number
      status?: number
      orgId?: string
    }>()
  })
})
