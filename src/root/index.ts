export type { ShapeDimensionName, ShapeForms } from '../api/answer-shapes.ts'
export {
  type AgeBracket,
  type DeleteUserResponse,
  deleteUserResponseSchema,
  type ErrorResponse,
  errorResponseSchema,
  type IdentifyUserRequest,
  type IdentifyUserResponse,
  identifyUserRequestSchema,
  identifyUserResponseSchema,
  type RegistrationStatus,
  type Sex,
  type UserProfile,
  type UserProfileInput,
  userProfileInputSchema,
  userProfileSchema,
} from '../api/api-schemas.ts'
export {
  type DataFile,
  type DataFileUser,
  dataFileSchema,
  type OrganisationInput,
  type PutUser,
} from '../api/data-file.ts'
export type { Latency } from '../api/latency.ts'
export type { ShapeCase, Shapes } from '../api/shape-cases.ts'
export type { Snapshot, SnapshotSource } from '../api/snapshot-schemas.ts'
export { ApiError, type ApiErrorCode } from '../base/errors.ts'
export type { Clock } from '../base/time.ts'
export type { OrganisationControls, Tenant } from '../control/control-surfaces.ts'
export type { TenantFailNextArgs, TenantFault } from '../control/control-table.ts'
export type { ChaosReading, ChaosSetting } from '../core/chaos.ts'
export type { FailureCase, FailureCaseName } from '../core/failure-cases.ts'
export type { FailureKindName } from '../core/failure-kinds.ts'
export {
  type CaseFault,
  type CaseOptions,
  type FailNextArgs,
  type Fault,
  type FaultOptions,
  faultSchema,
  type Operation,
  type QueuedFaultView,
} from '../core/faults.ts'
export type {
  Call,
  CallOf,
  CallRequest,
  CallScope,
  JournalEntry,
  JournaledFailure,
  JsonValue,
} from '../core/journal.ts'
export type { CreatedOrganisation, PutUserResult } from '../core/mock-core.ts'
export type { MockFetch } from '../core/mock-fetch.ts'
export { createOpenApiDocument, type OpenApiDocument } from '../core/openapi.ts'
export type { Collections, MockState, StateChange } from '../model/database.ts'
export type { Credentials } from '../model/dataset.ts'
export {
  type MockApiOptions,
  mockApiOptionsSchema,
  type OrganisationOptions,
} from '../options/mock-api-options.ts'
export type { RedeemFailure, RedeemResult } from '../rules/sign-in-tokens.ts'
export type { WebhookControls } from '../webhooks/delivery.ts'
export {
  type Notification,
  type NotificationsSentEvent,
  notificationsSentEventSchema,
  type UserCourseStartedEvent,
  userCourseStartedEventSchema,
  type WebhookEventInput,
} from '../webhooks/events.ts'
export {
  type OwnedWebhookEndpointInput,
  type RaisedWebhookEvent,
  type WebhookAttempt,
  type WebhookDelivery,
  type WebhookEndpoint,
  type WebhookEndpointInput,
  type WebhookEnvelope,
  webhookEnvelopeSchema,
} from '../webhooks/webhook-schemas.ts'
export { createMockApi, type MockApi } from './create-mock-api.ts'
