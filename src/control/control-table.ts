import * as z from 'zod'
import { deleteUserResponseSchema } from '../api/api-schemas.ts'
import { chaosReadingSchema } from '../api/chaos-setting.ts'
import {
  type ClockSetting,
  clockAdvanceSchema,
  clockReadingSchema,
  clockSettingSchema,
} from '../api/clock-schemas.ts'
import {
  type OrganisationInput,
  organisationInputSchema,
  type PutUser,
  putUserSchema,
} from '../api/data-file.ts'
import {
  type GatewaySetting,
  gatewaySchema,
  gatewaySettingSchema,
  type OrganisationGatewaySetting,
  organisationGatewaySchema,
} from '../api/gateway.ts'
import { type Latency, organisationLatencySchema } from '../api/latency.ts'
import { type ShapeCase, type Shapes, shapesSchema } from '../api/shape-cases.ts'
import { snapshotSchema } from '../api/snapshot-schemas.ts'
import { controlPaths } from '../base/control-paths.ts'
import { ApiError } from '../base/errors.ts'
import { packageName, packageVersion } from '../base/package-identity.ts'
import { type ChaosSetting, chaosSettingSchema } from '../core/chaos.ts'
import { coverageReportSchema } from '../core/coverage.ts'
import type { FailureCase, FailureCaseName } from '../core/failure-cases.ts'
import {
  type CaseOptions,
  type FailNextArgs,
  type FaultOptions,
  faultOf,
  faultSchema,
  type Operation,
  queuedFaultSchema,
} from '../core/faults.ts'
import {
  type CallScope,
  journalEntrySchema,
  journalQuerySchema,
  newestEntries,
  requestsQuerySchema,
} from '../core/journal.ts'
import { resetScopeSchema } from '../core/mock-core.ts'
import { saveSnapshotInput } from '../core/snapshots.ts'
import { createdOrganisationSchema } from '../core/tenant-controls.ts'
import {
  describeUser,
  listUsers,
  userDetailsSchema,
  userListQuerySchema,
  userListSchema,
  userQuerySchema,
} from '../inspector/queries.ts'
import { mockStateSchema } from '../model/database.ts'
import { deleteUser } from '../rules/delete-user.ts'
import { readGateway, setGateway } from '../rules/gateway.ts'
import { parseInput } from '../rules/organisations.ts'
import { redeemResultSchema } from '../rules/sign-in-tokens.ts'
import {
  type UserEventInput,
  type WebhookEventInput,
  webhookEventInputSchema,
} from '../webhooks/events.ts'
import {
  type OwnedWebhookEndpointInput,
  ownedWebhookEndpointInputSchema,
  raisedWebhookEventSchema,
  type WebhookEndpoint,
  type WebhookEndpointInput,
  webhookDeliverySchema,
  webhookEndpointSchema,
} from '../webhooks/webhook-schemas.ts'
import {
  failureCasesSchema,
  type Health,
  healthSchema,
  listOrganisations,
  organisationListSchema,
  shapeCasesSchema,
} from './control-answers.ts'
import { control } from './control-row.ts'

const orgIdParam = z.string().min(1).max(1024).describe('an organisation the mock has')
const organisationPath = `${controlPaths.organisations}/:orgId`
const none = z.strictObject({})
const snapshotPath = `${organisationPath}/snapshots/:name`
const snapshotNameParam = z.string().min(1).max(1024).describe('a snapshot the organisation has')

/** One user of an organisation, as `getUser` and `deleteUser` take it. */
const userOf = (orgId: string, id: string) => ({ orgId, id })

/** A page of an organisation's users, as `listUsers` takes it. */
const usersOf = (orgId: string, query: { q?: string; offset?: number; limit?: number } = {}) => ({
  ...query,
  orgId,
})

/** A fault queued for one tenant: its organisation is the tenant's. */
export type TenantFault = Omit<FaultOptions, 'orgId'>

/** An event a tenant raises for one of its users: a named type's input, its organisation the tenant's. */
export type TenantEvent = UserEventInput extends infer E
  ? E extends unknown
    ? Omit<E, 'orgId'>
    : never
  : never

/** Whose webhook endpoints or deliveries: one organisation's, or all. */
const webhookScopeSchema = z.strictObject({ orgId: orgIdParam.optional() })
type WebhookScope = z.input<typeof webhookScopeSchema>

/** Which queued faults to read or drop: those scoped to one organisation, or all. */
const faultScopeSchema = z.strictObject({ orgId: orgIdParam.optional() })
type FaultScope = z.input<typeof faultScopeSchema>

/** A sign-in token to redeem for an organisation, as the web view's query gives them. */
const redeemInputSchema = z.strictObject({
  orgId: orgIdParam,
  token: z.string().max(1024).describe('the token identify answered'),
})

/** What a tenant's `failNext` takes: `failNext`'s arguments, its organisation the tenant's. */
export type TenantFailNextArgs =
  | [operation: Operation, fault: TenantFault]
  | [failureCase: FailureCaseName, options?: Omit<CaseOptions, 'orgId'>]

/**
 * Every control of the mock, one row each (see `ControlRow`), grouped as the in-process API and
 * the client name them: `api.reset()`, `api.organisations.create()`, `api.webhooks.add()`. Adding a
 * control is a row here and the core function it calls; the HTTP route, the in-process method,
 * the tenant handle (for a row with `tenant`), `connectMockApi`, the OpenAPI document of the
 * controls and the server guide's table follow (docs/decisions/adding-a-control.md).
 */
export const controlTable = {
  health: control({
    method: 'GET',
    path: controlPaths.health,
    summary:
      'Answers once the mock does, with its name, version and instance id; needs no control token and answers with the controls off.',
    carry: 'none',
    input: none,
    output: healthSchema,
    status: 200,
    always: true,
    args: () => ({}),
    run: (core): Health => ({
      status: 'ok',
      name: packageName,
      version: packageVersion,
      instanceId: core.instanceId,
    }),
  }),
  reset: control({
    method: 'POST',
    path: controlPaths.reset,
    summary:
      'Back to the start: the seeded data, journal, faults and deliveries cleared; with `orgId`, that organisation only.',
    carry: 'body',
    emptyBody: true,
    input: resetScopeSchema,
    status: 204,
    args: (scope: { orgId?: string } = {}) => scope,
    tenant: { name: 'reset', args: (orgId) => ({ orgId }) },
    run: (core, scope) => core.reset(scope),
  }),
  failNext: control({
    method: 'POST',
    path: controlPaths.faults,
    summary:
      'Queues a fault: the next `count` calls of the operation (that `orgId` owns, for user `id`) answer one of its documented errors or meet a failure of another `kind`, `applied` or not; `{"case"}` arms a failure case by its name.',
    carry: 'body',
    input: faultSchema,
    status: 204,
    args: (...args: FailNextArgs) => faultOf(...args),
    tenant: {
      name: 'failNext',
      args: (orgId, ...rest: TenantFailNextArgs) => ({ ...faultOf(...rest), orgId }),
    },
    run: (core, fault) => core.queueFault(fault),
  }),
  queuedFaults: control({
    method: 'GET',
    path: controlPaths.faults,
    summary:
      'The faults still queued, in the order they will be taken; with `orgId`, those scoped to that organisation.',
    carry: 'query',
    input: faultScopeSchema,
    output: z.array(queuedFaultSchema),
    status: 200,
    args: (scope: FaultScope = {}) => scope,
    tenant: { name: 'queuedFaults', args: (orgId) => ({ orgId }) },
    run: (core, scope) => core.queuedFaults(scope),
    // Written as it is read: the queue may hold 16 MiB of faults.
    serve: async (core, scope) => ({
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: '',
      chunks: core.queuedFaultsJson(scope),
    }),
  }),
  clearFaults: control({
    method: 'DELETE',
    path: controlPaths.faults,
    summary:
      'Drops the faults still queued; with `orgId`, only those scoped to that organisation (404 for one the mock does not have).',
    carry: 'query',
    input: faultScopeSchema,
    status: 204,
    args: (scope: FaultScope = {}) => scope,
    tenant: { name: 'clearFaults', args: (orgId) => ({ orgId }) },
    run: (core, scope) => core.clearFaults(scope),
  }),
  redeemToken: control({
    method: 'POST',
    path: `${organisationPath}/tokens/redeem`,
    summary:
      'Redeems a sign-in token as the web view does (once, unexpired, of that organisation): `{ ok: true, user }` or `{ ok: false, reason }`.',
    carry: 'body',
    input: redeemInputSchema,
    output: redeemResultSchema,
    status: 200,
    args: (orgId: string, token: string) => ({ orgId, token }),
    tenant: { name: 'redeemToken', args: (orgId, token: string) => ({ orgId, token }) },
    run: (core, input) => {
      const { orgId, token } = parseInput(redeemInputSchema, input)
      return core.redeemToken(orgId, token)
    },
  }),
  state: control({
    method: 'GET',
    path: controlPaths.state,
    summary: 'Every record, one array per collection (written as it is read).',
    carry: 'none',
    input: none,
    output: mockStateSchema,
    status: 200,
    args: () => ({}),
    run: (core) => core.state(),
    serve: async (core) => ({
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: '',
      chunks: await core.stateJson(),
    }),
  }),
  requests: control({
    method: 'GET',
    path: controlPaths.requests,
    summary:
      'The journal, oldest first: every API call and web-view request (never a key or a token); with `orgId`, the calls that organisation owns; with `limit`, the newest.',
    carry: 'query',
    input: requestsQuerySchema,
    output: z.array(journalEntrySchema),
    status: 200,
    // `limit` is the query's alone: in-process and in a tenant's, every entry is at hand.
    args: (scope: CallScope = {}): { orgId?: string; limit?: number } => scope,
    tenant: { name: 'requests', args: (orgId) => ({ orgId }) },
    run: (core, { orgId, limit }) => newestEntries(core.requests({ orgId }), limit),
    // Written as it is read: the unscoped journal may be tens of megabytes of JSON.
    serve: async (core, { orgId, limit }) => ({
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: '',
      chunks: core.requestsJson({ orgId }, limit),
    }),
  }),
  coverage: Object.assign(
    control({
      method: 'GET',
      path: controlPaths.coverage,
      summary:
        "What the suite's clients met of every answer the API may give: each item (an answer of each operation, a shape case, a web-view outcome, a webhook event and delivery outcome) with its count; with `orgId`, that organisation's calls.",
      carry: 'query',
      input: z.strictObject({ orgId: z.string().min(1).max(1024).optional() }),
      output: coverageReportSchema,
      status: 200,
      args: (scope: { orgId?: string } = {}) => scope,
      tenant: { name: 'coverage', args: (orgId) => ({ orgId }) },
      run: (core, scope) => core.coverage(scope),
    }),
    {
      clear: control({
        method: 'DELETE',
        path: controlPaths.coverage,
        summary: "Starts the coverage afresh, the whole mock's and every organisation's.",
        carry: 'none',
        input: none,
        status: 204,
        args: () => ({}),
        run: (core) => core.clearCoverage(),
      }),
    },
  ),
  clock: control({
    method: 'GET',
    path: controlPaths.clock,
    summary:
      "The mock's clock, which every organisation without a clock of its own follows: its time and mode (`real`, `frozen` or `running`).",
    carry: 'none',
    input: none,
    output: clockReadingSchema,
    status: 200,
    args: () => ({}),
    run: (core) => core.clocks.read(),
  }),
  setClock: control({
    method: 'PUT',
    path: controlPaths.clock,
    summary:
      "Sets the mock's clock: `frozenAt` (stands still), `startAt` (runs on from there) or `real`; a webhook retry waiting on it keeps what was left of its delay.",
    carry: { bodyOf: 'setting' },
    input: z.strictObject({ setting: clockSettingSchema }),
    output: clockReadingSchema,
    status: 200,
    args: (setting: ClockSetting) => ({ setting }),
    run: (core, { setting }) => core.clocks.set(undefined, setting),
  }),
  advanceClock: control({
    method: 'POST',
    path: `${controlPaths.clock}/advance`,
    summary:
      "Moves the mock's clock on by `ms`, and answers once every webhook delivery that falls due meanwhile has been attempted, in order.",
    carry: 'body',
    input: clockAdvanceSchema,
    output: clockReadingSchema,
    status: 200,
    args: (ms: number) => ({ ms }),
    run: (core, { ms }) => core.clocks.advance(undefined, ms),
  }),
  chaos: control({
    method: 'GET',
    path: controlPaths.chaos,
    summary:
      "The mock's chaos, which every organisation without one of its own meets: its setting, seed and counts; `null` when none is under way.",
    carry: 'none',
    input: none,
    output: chaosReadingSchema.nullable(),
    status: 200,
    args: () => ({}),
    run: (core) => core.chaos.read(),
  }),
  setChaos: control({
    method: 'PUT',
    path: controlPaths.chaos,
    summary:
      "Starts the mock's chaos: a `rate` of calls meet a failure case (of `cases`, default every case of the call's operation) drawn from a `seed`ed stream, for `calls` calls or `forMs`.",
    carry: { bodyOf: 'setting' },
    input: z.strictObject({ setting: chaosSettingSchema }),
    output: chaosReadingSchema,
    status: 200,
    args: (setting: ChaosSetting) => ({ setting }),
    run: (core, { setting }) => core.chaos.set(undefined, setting),
  }),
  clearChaos: control({
    method: 'DELETE',
    path: controlPaths.chaos,
    summary: "Ends the mock's chaos.",
    carry: 'none',
    input: none,
    status: 204,
    args: () => ({}),
    run: (core) => core.chaos.end(),
  }),
  gateway: control({
    method: 'GET',
    path: controlPaths.gateway,
    summary:
      "The mock's gateway, which every organisation without one of its own stands behind: `none`, `nginx` or `haproxy`, its read timeout and (nginx) buffering.",
    carry: 'none',
    input: none,
    output: gatewaySchema,
    status: 200,
    args: () => ({}),
    run: (core) => core.transact((ctx) => readGateway(ctx, undefined)),
  }),
  setGateway: control({
    method: 'PUT',
    path: controlPaths.gateway,
    summary:
      "Puts a gateway in front of the mock's API (`none`, `nginx` or `haproxy`, with `readTimeoutMs` and, for nginx, `buffering`): each failure then arrives as that gateway makes of it. A reset returns to the `gateway` option.",
    carry: { bodyOf: 'setting' },
    input: z.strictObject({ setting: gatewaySettingSchema }),
    output: gatewaySchema,
    status: 200,
    args: (setting: GatewaySetting) => ({ setting }),
    run: (core, { setting }) => core.transact((ctx) => setGateway(ctx, undefined, setting)),
  }),
  organisations: {
    list: control({
      method: 'GET',
      path: controlPaths.organisations,
      summary:
        'The organisations with their API keys in clear (as the banner prints them), their answer shapes and a curl line; the first `maxOrganisations`.',
      carry: 'none',
      input: none,
      output: organisationListSchema,
      status: 200,
      args: () => ({}),
      run: (core, _input, origin) => listOrganisations(core, origin),
    }),
    create: control({
      method: 'POST',
      path: controlPaths.organisations,
      summary:
        "Creates an organisation (a tenant) with a fresh API key and, as asked, its groups, paths and users, or (`from`) an organisation's snapshot's state; 409 for an orgId the mock has.",
      carry: 'body',
      emptyBody: true,
      input: organisationInputSchema,
      output: createdOrganisationSchema,
      status: 201,
      handle: true,
      args: (input: OrganisationInput = {}) => input,
      // A tenant forks only its own organisation's snapshots: `from` names the tenant's.
      tenant: {
        name: 'fork',
        args: (orgId, snapshot: string, input: Pick<OrganisationInput, 'orgId' | 'name'> = {}) => ({
          ...input,
          from: { orgId, snapshot },
        }),
      },
      run: (core, input) => core.organisations.create(input),
    }),
    remove: control({
      method: 'DELETE',
      path: organisationPath,
      summary: 'Removes an organisation and everything of it.',
      carry: 'none',
      input: z.strictObject({ orgId: orgIdParam }),
      status: 204,
      args: (orgId: string) => ({ orgId }),
      tenant: { name: 'remove', args: (orgId) => ({ orgId }) },
      run: (core, { orgId }) => core.organisations.remove(orgId),
    }),
    putUser: control({
      method: 'PUT',
      path: `${organisationPath}/users/:id`,
      summary:
        "Creates (201) or replaces (200) the organisation's user `id` in the exact state the body (a data-file user) declares.",
      carry: { bodyOf: 'user' },
      input: z.strictObject({
        orgId: orgIdParam,
        id: z.string().min(1).max(1024),
        user: putUserSchema.describe('a data-file user'),
      }),
      output: userDetailsSchema,
      status: 201,
      args: (orgId: string, id: string, user: PutUser) => ({ orgId, id, user }),
      tenant: {
        name: 'putUser',
        args: (orgId, id: string, user: PutUser) => ({ orgId, id, user }),
      },
      run: (core, { orgId, id, user }) => core.organisations.putUser(orgId, id, user),
      // Over HTTP, the body is the user as `getUser` shows it; the status says whether it is new.
      toWire: async ({ created }, core, { orgId, id }) => ({
        status: created ? 201 : 200,
        body: await core.transact((ctx) => describeUser(ctx, { orgId, id })),
      }),
      fromWire: (status) => ({ created: status === 201 }),
    }),
    setLatency: control({
      method: 'PUT',
      path: `${organisationPath}/latency`,
      summary:
        "Sets the organisation's own latency (`{fixedMs}`, `{uniformMs}` or `{medianMs, p99Ms}`; `null`: the mock's), which wins over the mock's.",
      carry: 'body',
      input: organisationLatencySchema.extend({ orgId: orgIdParam }),
      status: 204,
      args: (orgId: string, latency: Latency | null) => ({ orgId, latency }),
      tenant: {
        name: 'setLatency',
        args: (orgId, latency: Latency | null) => ({ orgId, latency }),
      },
      run: (core, { orgId, latency }) => core.organisations.setLatency(orgId, latency),
    }),
    setShapes: control({
      method: 'PUT',
      path: `${organisationPath}/shapes`,
      summary:
        "Sets the organisation's own answer shapes (`full`, `varied` or a case's name), which win over the mock's.",
      carry: 'body',
      input: z.strictObject({ orgId: orgIdParam, shapes: shapesSchema }),
      status: 204,
      args: (orgId: string, shapes: Shapes) => ({ orgId, shapes }),
      tenant: { name: 'setShapes', args: (orgId, shapes: Shapes) => ({ orgId, shapes }) },
      run: (core, { orgId, shapes }) => core.organisations.setShapes(orgId, shapes),
    }),
    snapshots: control({
      method: 'GET',
      path: `${organisationPath}/snapshots`,
      summary: "The organisation's snapshots, oldest first: name, when saved, users and bytes.",
      carry: 'none',
      input: z.strictObject({ orgId: orgIdParam }),
      output: z.array(snapshotSchema),
      status: 200,
      args: (orgId: string) => ({ orgId }),
      tenant: { name: 'snapshots', args: (orgId) => ({ orgId }) },
      run: (core, { orgId }) => core.organisations.snapshots(orgId),
    }),
    saveSnapshot: control({
      method: 'POST',
      path: `${organisationPath}/snapshots`,
      summary:
        "Saves the organisation's state (users, tokens, sessions, and its settings: clock, shapes, latency, queued faults…) under `name`; 409 for a name it has, 400 past 16 or `maxStateBytes`.",
      carry: 'body',
      input: saveSnapshotInput.extend({ orgId: orgIdParam }),
      output: snapshotSchema,
      status: 201,
      args: (orgId: string, name: string) => ({ orgId, name }),
      tenant: { name: 'saveSnapshot', args: (orgId, name: string) => ({ orgId, name }) },
      run: (core, { orgId, name }) => core.organisations.saveSnapshot(orgId, name),
    }),
    restoreSnapshot: control({
      method: 'POST',
      path: `${snapshotPath}/restore`,
      summary:
        'Puts the organisation back in the state of its snapshot `name`, settings included; its journal and deliveries cleared as a reset clears them.',
      carry: 'none',
      input: z.strictObject({ orgId: orgIdParam, name: snapshotNameParam }),
      status: 204,
      args: (orgId: string, name: string) => ({ orgId, name }),
      tenant: { name: 'restoreSnapshot', args: (orgId, name: string) => ({ orgId, name }) },
      run: (core, { orgId, name }) => core.organisations.restoreSnapshot(orgId, name),
    }),
    dropSnapshot: control({
      method: 'DELETE',
      path: snapshotPath,
      summary: 'Drops snapshot `name` of the organisation.',
      carry: 'none',
      input: z.strictObject({ orgId: orgIdParam, name: snapshotNameParam }),
      status: 204,
      args: (orgId: string, name: string) => ({ orgId, name }),
      tenant: { name: 'dropSnapshot', args: (orgId, name: string) => ({ orgId, name }) },
      run: (core, { orgId, name }) => core.organisations.dropSnapshot(orgId, name),
    }),
    clock: control({
      method: 'GET',
      path: `${organisationPath}/clock`,
      summary:
        "The organisation's clock: its own, else the mock's it follows; its time and mode (`real`, `frozen` or `running`).",
      carry: 'none',
      input: z.strictObject({ orgId: orgIdParam }),
      output: clockReadingSchema,
      status: 200,
      args: (orgId: string) => ({ orgId }),
      tenant: { name: 'clock', args: (orgId) => ({ orgId }) },
      run: (core, { orgId }) => core.clocks.read(orgId),
    }),
    setClock: control({
      method: 'PUT',
      path: `${organisationPath}/clock`,
      summary:
        "Sets the organisation's own clock: `frozenAt`, `startAt`, or `real` (none of its own: it follows the mock's again).",
      carry: { bodyOf: 'setting' },
      input: z.strictObject({ orgId: orgIdParam, setting: clockSettingSchema }),
      output: clockReadingSchema,
      status: 200,
      args: (orgId: string, setting: ClockSetting) => ({ orgId, setting }),
      tenant: {
        name: 'setClock',
        args: (orgId, setting: ClockSetting) => ({ orgId, setting }),
      },
      run: (core, { orgId, setting }) => core.clocks.set(orgId, setting),
    }),
    advanceClock: control({
      method: 'POST',
      path: `${organisationPath}/clock/advance`,
      summary:
        "Moves the organisation's clock on by `ms` (one of its own from then on), and answers once every webhook delivery of it that falls due meanwhile has been attempted, in order.",
      carry: 'body',
      input: z.strictObject({ orgId: orgIdParam, ms: clockAdvanceSchema.shape.ms }),
      output: clockReadingSchema,
      status: 200,
      args: (orgId: string, ms: number) => ({ orgId, ms }),
      tenant: { name: 'advanceClock', args: (orgId, ms: number) => ({ orgId, ms }) },
      run: (core, { orgId, ms }) => core.clocks.advance(orgId, ms),
    }),
    chaos: control({
      method: 'GET',
      path: `${organisationPath}/chaos`,
      summary:
        "The organisation's own chaos, which replaces the mock's for its calls: its setting, seed and counts; `null` when none is under way.",
      carry: 'none',
      input: z.strictObject({ orgId: orgIdParam }),
      output: chaosReadingSchema.nullable(),
      status: 200,
      args: (orgId: string) => ({ orgId }),
      tenant: { name: 'chaos', args: (orgId) => ({ orgId }) },
      run: (core, { orgId }) => core.chaos.read(orgId),
    }),
    setChaos: control({
      method: 'PUT',
      path: `${organisationPath}/chaos`,
      summary:
        "Starts the organisation's own chaos (as the mock's, for its calls only), in place of the mock's for them.",
      carry: { bodyOf: 'setting' },
      input: z.strictObject({ orgId: orgIdParam, setting: chaosSettingSchema }),
      output: chaosReadingSchema,
      status: 200,
      args: (orgId: string, setting: ChaosSetting) => ({ orgId, setting }),
      tenant: {
        name: 'setChaos',
        args: (orgId, setting: ChaosSetting) => ({ orgId, setting }),
      },
      run: (core, { orgId, setting }) => core.chaos.set(orgId, setting),
    }),
    clearChaos: control({
      method: 'DELETE',
      path: `${organisationPath}/chaos`,
      summary: "Ends the organisation's own chaos: its calls meet the mock's again, if any.",
      carry: 'none',
      input: z.strictObject({ orgId: orgIdParam }),
      status: 204,
      args: (orgId: string) => ({ orgId }),
      tenant: { name: 'clearChaos', args: (orgId) => ({ orgId }) },
      run: (core, { orgId }) => core.chaos.end(orgId),
    }),
    gateway: control({
      method: 'GET',
      path: `${organisationPath}/gateway`,
      summary:
        "The gateway in front of the organisation's calls: its own, else the mock's it follows.",
      carry: 'none',
      input: z.strictObject({ orgId: orgIdParam }),
      output: gatewaySchema,
      status: 200,
      args: (orgId: string) => ({ orgId }),
      tenant: { name: 'gateway', args: (orgId) => ({ orgId }) },
      run: (core, { orgId }) => core.transact((ctx) => readGateway(ctx, orgId)),
    }),
    setGateway: control({
      method: 'PUT',
      path: `${organisationPath}/gateway`,
      summary:
        "Puts the organisation's own gateway in front of its calls (`{gateway: null}`: none of its own, it follows the mock's); a reset of it returns to the one it was created with.",
      carry: { bodyOf: 'setting' },
      input: z.strictObject({ orgId: orgIdParam, setting: organisationGatewaySchema }),
      output: gatewaySchema,
      status: 200,
      args: (orgId: string, setting: OrganisationGatewaySetting) => ({ orgId, setting }),
      tenant: {
        name: 'setGateway',
        args: (orgId, setting: OrganisationGatewaySetting) => ({ orgId, setting }),
      },
      run: (core, { orgId, setting }) => core.transact((ctx) => setGateway(ctx, orgId, setting)),
    }),
    listUsers: control({
      method: 'GET',
      path: controlPaths.users,
      summary:
        "One page of the organisation's users, newest first, whose id, userId or name contains `q` (any case).",
      carry: 'query',
      input: userListQuerySchema,
      output: userListSchema,
      status: 200,
      args: usersOf,
      tenant: { name: 'listUsers', args: usersOf },
      run: (core, query) =>
        core.transact((ctx) => listUsers(ctx, userListQuerySchema.parse(query))),
    }),
    getUser: control({
      method: 'GET',
      path: controlPaths.user,
      summary:
        'One user: its profile (in its answer shape), progress, certificates, sign-in tokens (never the token) and sessions; 404 `User not found`.',
      carry: 'query',
      input: userQuerySchema,
      output: userDetailsSchema,
      status: 200,
      args: userOf,
      tenant: { name: 'getUser', args: userOf },
      run: (core, query) => core.transact((ctx) => describeUser(ctx, query)),
    }),
    deleteUser: control({
      method: 'DELETE',
      path: controlPaths.user,
      summary:
        "Removes the user as the API's delete does, without taking a fault or writing to the journal; 404 `User not found`.",
      carry: 'query',
      input: userQuerySchema,
      output: deleteUserResponseSchema,
      status: 200,
      args: userOf,
      tenant: { name: 'deleteUser', args: userOf },
      run: (core, query) => core.transact((ctx) => deleteUser(ctx, query.orgId, query)),
    }),
  },
  shapes: {
    cases: control({
      method: 'GET',
      path: controlPaths.shapes,
      summary: 'The covering set of answer shapes: every case, with the form of each dimension.',
      carry: 'none',
      input: none,
      output: shapeCasesSchema,
      status: 200,
      args: () => ({}),
      run: (core) => core.shapes.cases(),
      toWire: (cases) => ({ status: 200, body: { cases } }),
      fromWire: (_status, body) => (body as { cases: ShapeCase[] }).cases,
    }),
  },
  failures: {
    cases: control({
      method: 'GET',
      path: controlPaths.failures,
      summary:
        'The failure cases: for each operation every kind (each status its own) with each `applied` value it allows, by name.',
      carry: 'none',
      input: none,
      output: failureCasesSchema,
      status: 200,
      args: () => ({}),
      run: (core) => core.failures.cases(),
      toWire: (cases) => ({ status: 200, body: { cases } }),
      fromWire: (_status, body) => (body as { cases: FailureCase[] }).cases,
    }),
  },
  webhooks: {
    add: control({
      method: 'POST',
      path: controlPaths.webhooks,
      summary:
        "Registers a webhook endpoint: with `orgId`, that organisation's, which receives only its events; without, the mock's, which receives every one. The answer is the only one that shows its secret.",
      carry: 'body',
      input: ownedWebhookEndpointInputSchema,
      output: webhookEndpointSchema,
      status: 201,
      args: (endpoint: OwnedWebhookEndpointInput) => endpoint,
      tenant: {
        name: 'webhooks.add',
        args: (orgId, endpoint: WebhookEndpointInput) => ({ ...endpoint, orgId }),
      },
      run: (core, endpoint) => core.webhooks.add(endpoint),
    }),
    list: control({
      method: 'GET',
      path: controlPaths.webhooks,
      summary:
        'The webhook endpoints (over HTTP, without their secrets); with `orgId`, those of that organisation.',
      carry: 'query',
      input: webhookScopeSchema,
      output: z.array(webhookEndpointSchema.omit({ secret: true })),
      status: 200,
      args: (scope: WebhookScope = {}) => scope,
      tenant: { name: 'webhooks.list', args: (orgId) => ({ orgId }) },
      run: (core, scope) => core.webhooks.list(scope),
      // The secrets are shown once, in the answer that creates an endpoint (and in the banner).
      toWire: (endpoints) => ({
        status: 200,
        body: endpoints.map(({ secret: _, ...endpoint }) => endpoint),
      }),
      fromWire: (_status, body) => body as Omit<WebhookEndpoint, 'secret'>[],
    }),
    deliveries: control({
      method: 'GET',
      path: controlPaths.webhookDeliveries,
      summary:
        "One entry per message and endpoint, oldest first; with `orgId`, those to that organisation's endpoints; with `limit`, the newest.",
      carry: 'query',
      input: journalQuerySchema.extend(webhookScopeSchema.shape),
      output: z.array(webhookDeliverySchema),
      status: 200,
      args: (scope: WebhookScope = {}): { orgId?: string; limit?: number } => scope,
      tenant: { name: 'webhooks.deliveries', args: (orgId) => ({ orgId }) },
      run: (core, { orgId, limit }) => newestEntries(core.webhooks.deliveries({ orgId }), limit),
    }),
    remove: control({
      method: 'DELETE',
      path: `${controlPaths.webhooks}/:id`,
      summary:
        'Removes a webhook endpoint and cancels its retries; with `orgId`, only one of that organisation; 404 `Webhook endpoint not found` (`false` in-process).',
      carry: 'query',
      input: z.strictObject({ id: z.string().min(1).max(1024), orgId: orgIdParam.optional() }),
      status: 204,
      args: (id: string, scope: WebhookScope = {}) => ({ ...scope, id }),
      tenant: { name: 'webhooks.remove', args: (orgId, id: string) => ({ orgId, id }) },
      run: (core, { id, orgId }) => core.webhooks.remove(id, { orgId }),
      toWire: (removed) => {
        if (!removed) throw new ApiError('webhookNotFound')
        return { status: 204 }
      },
      fromWire: () => true,
      fromError: (code) => (code === 'webhookNotFound' ? { value: false } : undefined),
    }),
  },
  events: {
    raise: control({
      method: 'POST',
      path: controlPaths.events,
      summary:
        'Raises a webhook event, delivered to every endpoint that receives its type; 404 `User not found` for a named event whose user does not exist.',
      carry: 'body',
      input: webhookEventInputSchema,
      output: raisedWebhookEventSchema,
      status: 202,
      args: (input: WebhookEventInput) => input,
      tenant: {
        name: 'raiseEvent',
        args: (orgId, event: TenantEvent) => ({ ...event, orgId }) as WebhookEventInput,
      },
      run: (core, input) => core.events.raise(input),
    }),
  },
}

export type ControlTable = typeof controlTable
