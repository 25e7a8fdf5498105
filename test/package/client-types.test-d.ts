import type { MockApiClient } from 'identify-api-mock/client'
import { describe, expectTypeOf, it } from 'vitest'
import type { Call, MockApi, Tenant } from '../../src/root/index.ts'

/**
 * `connectMockApi`'s client has the in-process `MockApi`'s control names and signatures, each
 * awaited: a test moves between the two unchanged.
 */
describe('MockApiClient', () => {
  it('takes what MockApi takes, and resolves to what it returns', () => {
    expectTypeOf<Parameters<MockApiClient['reset']>>().toEqualTypeOf<Parameters<MockApi['reset']>>()
    expectTypeOf<Parameters<MockApiClient['failNext']>>().toEqualTypeOf<
      Parameters<MockApi['failNext']>
    >()
    expectTypeOf<Parameters<MockApiClient['requests']>>().toEqualTypeOf<
      Parameters<MockApi['requests']>
    >()
    expectTypeOf<ReturnType<MockApiClient['requests']>>().toEqualTypeOf<
      Promise<ReturnType<MockApi['requests']>>
    >()
    expectTypeOf<ReturnType<MockApiClient['queuedFaults']>>().toEqualTypeOf<
      Promise<ReturnType<MockApi['queuedFaults']>>
    >()
    expectTypeOf<ReturnType<MockApiClient['state']>>().toEqualTypeOf<ReturnType<MockApi['state']>>()
    expectTypeOf<MockApiClient['credentials']>().toEqualTypeOf<Promise<MockApi['credentials']>>()
    const client = {} as MockApiClient
    const api = {} as MockApi
    expectTypeOf(client.calls('delete')).toEqualTypeOf<
      Promise<ReturnType<typeof api.calls<'delete'>>>
    >()
    expectTypeOf(client.calls()).toEqualTypeOf<Promise<Call[]>>()
  })

  it('creates, removes and puts as MockApi does, both resolving to a Tenant', () => {
    type Organisations = MockApi['organisations']
    expectTypeOf<Parameters<MockApiClient['organisations']['create']>>().toEqualTypeOf<
      Parameters<Organisations['create']>
    >()
    expectTypeOf<ReturnType<MockApiClient['organisations']['create']>>().toEqualTypeOf<
      Promise<Tenant>
    >()
    expectTypeOf<ReturnType<Organisations['create']>>().toEqualTypeOf<Promise<Tenant>>()
    expectTypeOf<MockApiClient['organisations']['putUser']>().toEqualTypeOf<
      Organisations['putUser']
    >()
    expectTypeOf<MockApiClient['organisations']['remove']>().toEqualTypeOf<
      Organisations['remove']
    >()
    expectTypeOf<Parameters<MockApiClient['events']['raise']>>().toEqualTypeOf<
      Parameters<MockApi['events']['raise']>
    >()
    expectTypeOf<Parameters<MockApiClient['webhooks']['add']>>().toEqualTypeOf<
      Parameters<MockApi['webhooks']['add']>
    >()
  })
})
