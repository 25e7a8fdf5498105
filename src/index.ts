export type { Credentials, OrganisationOptions } from '../fixtures/dataset.ts'
export { createHandlers, type HandlerOptions } from '../handlers/index.ts'
export { createMockApi, type MockApi } from './create-mock-api.ts'
export { ApiError, type ApiErrorCode, apiErrors, type WireResponse } from './errors.ts'
export {
  type Fault,
  type FaultOptions,
  faultSchema,
  type Operation,
  operationErrors,
} from './faults.ts'
export type { Call, CallOf, CallRequest, JournalEntry, JsonValue } from './journal.ts'
export { MockCore, type StateStore } from './mock-core.ts'
export type { MockFetch } from './mock-fetch.ts'
export type { Collections, MockState, StateChange } from './model/database.ts'
export * from './model/records.ts'
export { createOpenApiDocument, type OpenApiDocument } from './openapi.ts'
export { type MockApiOptions, mockApiOptionsSchema } from './options.ts'
export type { RedeemFailure, RedeemResult } from './rules/sign-in-tokens.ts'
export * from './schemas.ts'
export type { Clock } from './time.ts'
export type { WebhookControls } from './webhooks/webhooks.ts'
export type { WireRequest } from './wire.ts'
