import type { PutUser } from '../api/data-file.ts'
import type { Shapes } from '../api/shape-cases.ts'
import type { FaultOptions, Operation } from './faults.ts'
import type { CallOf } from './journal.ts'
import type { MockCore, PutUserResult } from './mock-core.ts'

/** A fault queued for one tenant: its organisation is the tenant's. */
export type TenantFault = Omit<FaultOptions, 'orgId'>

/**
 * An organisation created for one test file or worker on a mock shared with others: its id, its
 * API key, the base URL its API answers on, and controls that touch only it. What
 * `organisations.create()` resolves to, in-process (`createMockApi`) and over HTTP
 * (`connectMockApi`) alike, so that a test moves between the two unchanged.
 *
 * @example
 * const tenant = await api.organisations.create({ users: [{ id: 'ada', registrationStatus: 'archived' }] })
 * await tenant.failNext('identify', { status: 500 })
 * expect(await tenant.calls('identify')).toHaveLength(1)
 * afterEach(() => tenant.reset())
 */
export interface Tenant {
  readonly orgId: string
  /** Its API key, in clear: `Authorization: Bearer <apiKey>`. */
  readonly apiKey: string
  /** Where its API answers: the handlers' base URL in-process, the server's URL over HTTP. */
  readonly baseUrl: string
  /** Back to what it was created with; its calls, queued faults and deliveries forgotten. */
  reset(): Promise<void>
  /** Makes its next `count` calls of `operation` (for user `id`, if given) answer `status`. */
  failNext(operation: Operation, fault: TenantFault): Promise<void>
  /** Its API calls (of `operation` if given), oldest first. */
  calls<O extends Operation = Operation>(operation?: O): Promise<CallOf<O>[]>
  /** Creates or replaces its user `id` in the exact state `user` declares. */
  putUser(id: string, user: PutUser): Promise<PutUserResult>
  /**
   * Sets its own answer shapes (`full`, `varied` or a case's name): a test that runs once per
   * case of `shapes.cases()` applies each to its tenant only.
   */
  setShapes(shapes: Shapes): Promise<void>
  /** Removes it and everything of it. */
  remove(): Promise<void>
}

/**
 * A tenant's `baseUrl` in-process when the mock has no `baseUrl`: its handlers and `api.fetch`
 * then answer every origin, and this one (a reserved `.test` name) reaches nothing else.
 */
export const anyOriginBaseUrl = 'https://api.example.test'

/**
 * The {@link Tenant} of organisation `orgId` of an in-process mock: a thin handle over the
 * mock's own scoped controls.
 *
 * @example const tenant = inProcessTenant(core, { orgId, apiKey })
 */
export function inProcessTenant(
  core: Pick<MockCore, 'reset' | 'failNext' | 'calls' | 'organisations' | 'options'>,
  { orgId, apiKey }: { orgId: string; apiKey: string },
): Tenant {
  return {
    orgId,
    apiKey,
    baseUrl: (core.options.baseUrl ?? anyOriginBaseUrl).replace(/\/+$/, ''),
    reset: () => core.reset({ orgId }),
    failNext: async (operation, fault) => core.failNext(operation, { ...fault, orgId }),
    calls: async (operation) => core.calls(operation, { orgId }),
    putUser: (id, user) => core.organisations.putUser(orgId, id, user),
    setShapes: (shapes) => core.organisations.setShapes(orgId, shapes),
    remove: () => core.organisations.remove(orgId),
  }
}
