import type { HttpHandler } from 'msw'
import { describe, expectTypeOf, it } from 'vitest'
import type * as z from 'zod'
import type { WireRequest } from '../../src/root/advanced.ts'
import {
  type Call,
  type CallScope,
  type CaseOptions,
  createMockApi,
  type DeleteUserResponse,
  type ErrorResponse,
  type FailureCaseName,
  type FailureKindName,
  type FaultOptions,
  type IdentifyUserRequest,
  type IdentifyUserResponse,
  type JournalEntry,
  type JournaledFailure,
  type JsonValue,
  type MockApi,
  type MockApiOptions,
  type MockState,
  type Operation,
  type OwnedWebhookEndpointInput,
  type RaisedWebhookEvent,
  type RedeemResult,
  type ShapeCase,
  type ShapeForms,
  type Snapshot,
  type Tenant,
  type UserProfile,
  type UserProfileInput,
  type userProfileSchema,
  type WebhookDelivery,
  type WebhookEndpoint,
  type WebhookEndpointInput,
  type WebhookEventInput,
} from '../../src/root/index.ts'
import {
  type VerifyError,
  type VerifyOptions,
  type VerifyReport,
  verifyDeployment,
} from '../../src/verify/node/index.ts'

describe('createMockApi', () => {
  it('takes optional options and returns handlers with the controls', () => {
    expectTypeOf(createMockApi).parameter(0).toEqualTypeOf<MockApiOptions | undefined>()
    const api = createMockApi()
    expectTypeOf(api.handlers).toEqualTypeOf<HttpHandler[]>()
    expectTypeOf(api.ready).toEqualTypeOf<Promise<void>>()
    expectTypeOf(api.reset).toEqualTypeOf<(scope?: { orgId?: string }) => Promise<void>>()
    expectTypeOf(api.state).toEqualTypeOf<() => Promise<MockState>>()
    expectTypeOf(api.requests).toEqualTypeOf<(scope?: CallScope) => JournalEntry[]>()
    expectTypeOf(api.redeemToken).toEqualTypeOf<
      (orgId: string, token: string) => Promise<RedeemResult>
    >()
    expectTypeOf(api.failNext).parameters.toEqualTypeOf<
      | [operation: Operation, fault: FaultOptions]
      | [failureCase: FailureCaseName, options?: CaseOptions]
    >()
    expectTypeOf<FaultOptions>().toEqualTypeOf<{
      kind?: FailureKindName | undefined
      status?: number | undefined
      applied?: boolean | undefined
      retryAfterSeconds?: number | null | undefined
      retryAfterDate?: boolean | undefined
      count?: number | undefined
      delayMs?: number | undefined
      orgId?: string | undefined
      id?: string | undefined
    }>()
    expectTypeOf<FailureCaseName>().toExtend<string>()
    expectTypeOf<'delete-reset-applied'>().toExtend<FailureCaseName>()
    expectTypeOf<'delete-reset-sideways'>().not.toExtend<FailureCaseName>()
    expectTypeOf<Operation>().toEqualTypeOf<'identify' | 'delete'>()
  })

  it('lists in api.db the model it holds, and sign-in tokens and sessions only in state()', () => {
    expectTypeOf<keyof MockApi['db']>().toEqualTypeOf<
      | 'organisations'
      | 'apiKeys'
      | 'users'
      | 'userGroups'
      | 'learningPaths'
      | 'learningProgress'
      | 'certificates'
      | 'organisationStarts'
      | 'organisationSnapshots'
      | 'clocks'
      | 'organisationShapes'
      | 'userShapes'
      | 'organisationLatencies'
      | 'gateways'
    >()
    expectTypeOf<MockState>().toHaveProperty('signInTokens')
    expectTypeOf<MockState>().toHaveProperty('webViewSessions')
  })

  it("shows only what a user calls, not the core's internals", () => {
    expectTypeOf<MockApi>().not.toHaveProperty('transact')
    expectTypeOf<MockApi>().not.toHaveProperty('options')
    expectTypeOf<MockApi>().toHaveProperty('queuedFaults')
  })

  it('gives snapshots and forks on the tenant handle, a fork as a tenant handle', () => {
    expectTypeOf<Tenant['snapshots']>().returns.toEqualTypeOf<Promise<Snapshot[]>>()
    expectTypeOf<Tenant['saveSnapshot']>().parameters.toEqualTypeOf<[name: string]>()
    expectTypeOf<Tenant['fork']>().returns.toEqualTypeOf<Promise<Tenant>>()
    expectTypeOf<MockApi['organisations']['restoreSnapshot']>().parameters.toEqualTypeOf<
      [orgId: string, name: string]
    >()
  })

  it('gives a standard fetch, and calls typed by operation', () => {
    const api = createMockApi()
    expectTypeOf(api.fetch).toEqualTypeOf<
      (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>
    >()
    expectTypeOf(api.fetch).toExtend<typeof fetch>()
    expectTypeOf(api.dispatch).parameter(0).toEqualTypeOf<WireRequest | Request>()
    expectTypeOf(api.calls('delete')).toEqualTypeOf<
      {
        operation: 'delete'
        request: { orgId: string; id: string }
        status: number
        time: string
        failure?: JournaledFailure
        clientGone?: true
        orgTime: string
      }[]
    >()
    expectTypeOf(api.calls('identify')[0]?.request).toEqualTypeOf<JsonValue | undefined>()
    expectTypeOf(api.calls('identify')[0]?.shape).toEqualTypeOf<string | undefined>()
    expectTypeOf(api.shapes.cases()).toEqualTypeOf<ShapeCase[]>()
    expectTypeOf<ShapeCase['forms']>().toEqualTypeOf<ShapeForms>()
    expectTypeOf<ShapeForms['offset']>().toEqualTypeOf<'utc' | 'z' | 'east' | 'west'>()
    expectTypeOf<ShapeForms['firstName']>().toEqualTypeOf<'null' | 'absent'>()
    expectTypeOf(api.calls()).toEqualTypeOf<Call[]>()
  })

  it('accepts the documented options', () => {
    expectTypeOf<MockApiOptions>().toMatchTypeOf<{
      seed?: number
      organisations?: Array<{ orgId: string; apiKeys?: string[]; users?: number }>
      baseUrl?: string
      tokenTtlSeconds?: number
      now?: () => Date
      strictUserGroups?: boolean
      authFailureStatus?: 401 | 403
    }>()
    // @ts-expect-error: 402 is not an authentication failure status
    createMockApi({ authFailureStatus: 402 })
  })
})

describe('schema types', () => {
  it('follow the API description', () => {
    expectTypeOf<IdentifyUserRequest>().toEqualTypeOf<{
      id: string
      orgId: string
      data?: UserProfileInput | undefined
    }>()
    expectTypeOf<UserProfileInput['sex']>().toEqualTypeOf<'male' | 'female' | undefined>()
    expectTypeOf<UserProfileInput['ageBracket']>().toEqualTypeOf<
      '18-24' | '25-34' | '35-44' | '45-54' | '55-64' | '65+' | undefined
    >()
    expectTypeOf<UserProfile['registrationStatus']>().toEqualTypeOf<
      'registered' | 'unregistered' | 'archived'
    >()
    expectTypeOf<UserProfile['lastActive']>().toEqualTypeOf<string | null | undefined>()
    expectTypeOf<UserProfile['userGroups']>().toEqualTypeOf<string[]>()
    expectTypeOf<IdentifyUserResponse>().toEqualTypeOf<{
      id: string
      data: UserProfile
      token: string
    }>()
    expectTypeOf<DeleteUserResponse>().toEqualTypeOf<{ id: string; deleted: boolean }>()
    expectTypeOf<ErrorResponse>().toEqualTypeOf<{ code: number; message: string }>()
    expectTypeOf<z.infer<typeof userProfileSchema>>().toEqualTypeOf<UserProfile>()
  })
})

describe('api.webhooks and api.events', () => {
  it('are typed from their zod schemas, without any', () => {
    const api = createMockApi()
    expectTypeOf(api.webhooks.add).toEqualTypeOf<
      (endpoint: OwnedWebhookEndpointInput) => WebhookEndpoint
    >()
    expectTypeOf<OwnedWebhookEndpointInput>().toEqualTypeOf<{
      url: string
      secret?: string | undefined
      events?: string[] | undefined
      orgId?: string | undefined
    }>()
    expectTypeOf(api.webhooks.deliveries).toEqualTypeOf<
      (scope?: { orgId?: string | undefined }) => WebhookDelivery[]
    >()
    expectTypeOf(api.webhooks.settled).toEqualTypeOf<() => Promise<void>>()
    expectTypeOf(api.events.raise).toEqualTypeOf<
      (input: WebhookEventInput) => Promise<RaisedWebhookEvent>
    >()
    expectTypeOf<WebhookEndpoint>().toEqualTypeOf<{
      id: string
      url: string
      secret: string
      events: string[] | null
      orgId?: string | undefined
    }>()
    // A tenant's webhooks: its own endpoints, nested under `webhooks` as the table's names say.
    expectTypeOf<Tenant['webhooks']['add']>().toEqualTypeOf<
      (endpoint: WebhookEndpointInput) => Promise<WebhookEndpoint>
    >()
    expectTypeOf<Tenant['webhooks']['remove']>().toEqualTypeOf<(id: string) => Promise<boolean>>()
    expectTypeOf<Tenant['webhooks']['deliveries']>().toEqualTypeOf<
      () => Promise<WebhookDelivery[]>
    >()
    expectTypeOf<WebhookDelivery['attempts'][number]>().toEqualTypeOf<{
      at: string
      status?: number | undefined
      error?: string | undefined
    }>()
    expectTypeOf<RaisedWebhookEvent['api_version']>().toEqualTypeOf<'2022-11-15'>()
    // A named event needs its user; any other type needs its data.
    expectTypeOf<{ type: 'notifications.sent'; orgId: string }>().not.toExtend<WebhookEventInput>()
    expectTypeOf<{
      type: 'notifications.sent'
      orgId: string
      id: string
    }>().toExtend<WebhookEventInput>()
    expectTypeOf<{ type: 'user.registered'; data: { a: 1 } }>().toExtend<WebhookEventInput>()
  })
})

describe('identify-api-mock/verify', () => {
  it('takes the deployment and returns a report of typed rows', () => {
    expectTypeOf(verifyDeployment).parameter(0).toEqualTypeOf<VerifyOptions>()
    expectTypeOf(verifyDeployment).returns.toEqualTypeOf<Promise<VerifyReport>>()
    expectTypeOf<VerifyReport['checks'][number]['kind']>().toEqualTypeOf<'contract' | 'decision'>()
    expectTypeOf<VerifyReport['checks'][number]['verdict']>().toEqualTypeOf<
      'same' | 'differs' | 'skipped'
    >()
    expectTypeOf<VerifyError['reason']>().toEqualTypeOf<
      'invalid-options' | 'unreachable' | 'refused' | 'interrupted'
    >()
    expectTypeOf<VerifyOptions>().toHaveProperty('baseUrl').toEqualTypeOf<string>()
  })
})
