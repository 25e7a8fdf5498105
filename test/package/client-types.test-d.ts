import { failureCases, type MockApiClient } from 'identify-api-mock/client'
import type { StartedIdentifyApiMockContainer } from 'identify-api-mock/testcontainers'
import { failureCases as vitestServerCases } from 'identify-api-mock/vitest-server'
import { describe, expectTypeOf, it } from 'vitest'
import type { Call, FailureCaseName, MockApi, Tenant } from '../../src/root/index.ts'

/**
 * `T`'s methods as a client over HTTP has them: the same arguments, each result awaited (and a
 * method's own methods too: `coverage.clear`).
 */
type Awaiting<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => infer R
    ? Own<(...args: A) => Promise<Awaited<R>>, Awaiting<{ [M in keyof T[K]]: T[K][M] }>>
    : Awaiting<T[K]>
}

type Own<M, Methods> = keyof Methods extends never ? M : M & Methods

/** What the control table gives in-process: every member of `MockApi` that a client has too. */
type Controls<T> = Omit<
  T,
  'url' | 'ready' | 'credentials' | 'calls' | 'handlers' | 'fetch' | 'db' | 'dispatch'
>

/**
 * `connectMockApi`'s client has every control of the in-process `MockApi`, with its names and
 * arguments, each awaited: a test moves between the two unchanged. Both are read from the control
 * table, so a row added there is in both; the one result that differs is said here.
 */
describe('MockApiClient', () => {
  it('has every control of MockApi, taking what it takes and resolving to what it returns', () => {
    type InProcess = Controls<MockApi>
    type OverHttp = Controls<MockApiClient>
    // Over HTTP, the endpoints come without their secrets (shown once, when one is added).
    type Webhooks = Omit<InProcess['webhooks'], 'list' | 'settled' | 'cancel'>
    expectTypeOf<Omit<OverHttp, 'webhooks'>>().toEqualTypeOf<
      Awaiting<Omit<InProcess, 'webhooks'>>
    >()
    expectTypeOf<Omit<OverHttp['webhooks'], 'list'>>().toEqualTypeOf<Awaiting<Webhooks>>()
    expectTypeOf<Awaited<ReturnType<OverHttp['webhooks']['list']>>[number]>().not.toHaveProperty(
      'secret',
    )
  })

  it('reads the calls and the credentials as MockApi does, awaited', () => {
    expectTypeOf<MockApiClient['credentials']>().toEqualTypeOf<Promise<MockApi['credentials']>>()
    const client = {} as MockApiClient
    const api = {} as MockApi
    expectTypeOf(client.calls('delete')).toEqualTypeOf<
      Promise<ReturnType<typeof api.calls<'delete'>>>
    >()
    expectTypeOf(client.calls()).toEqualTypeOf<Promise<Call[]>>()
  })

  it("gives the Testcontainers module's client, whose tenants are the same Tenant type", () => {
    type ContainerClient = ReturnType<StartedIdentifyApiMockContainer['getClient']>
    expectTypeOf<ContainerClient>().toEqualTypeOf<MockApiClient>()
    expectTypeOf<
      Awaited<ReturnType<ContainerClient['organisations']['create']>>
    >().toEqualTypeOf<Tenant>()
  })

  it('creates organisations as MockApi does, both resolving to one Tenant type', () => {
    expectTypeOf<ReturnType<MockApiClient['organisations']['create']>>().toEqualTypeOf<
      Promise<Tenant>
    >()
    expectTypeOf<ReturnType<MockApi['organisations']['create']>>().toEqualTypeOf<Promise<Tenant>>()
  })

  it('gives the failure cases as static data, each name typed as a case, for a tenant to fail with', () => {
    expectTypeOf(failureCases[0]?.name).toEqualTypeOf<FailureCaseName | undefined>()
    expectTypeOf(vitestServerCases).toEqualTypeOf(failureCases)
    expectTypeOf<Tenant['failNext']>().toBeCallableWith('delete-reset-applied')
    type CaseName = (typeof failureCases)[number]['name']
    expectTypeOf<CaseName>().toExtend<Parameters<Tenant['failNext']>[0]>()
  })
})
