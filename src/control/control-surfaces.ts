import { type CallOf, callsIn, type JournalEntry } from '../core/journal.ts'
import type { MockCore } from '../core/mock-core.ts'
import type { Operation } from '../core/routes.ts'
import { type AnyControlRow, parseQuery } from './control-row.ts'
import { type ControlTable, controlTable } from './control-table.ts'

// The surfaces read from the control table: the in-process methods, the client's, and the tenant
// handle, as types and as objects built over one way of calling a row (see `Invoke`).

/**
 * The rows a row holds besides its own fields: `coverage.clear` of `coverage`, a method of the
 * method `api.coverage()`.
 */
type SubRows<R> = { [K in keyof R as R[K] extends AnyControlRow ? K : never]: R[K] }

/** A row's method, with the methods of its own rows when it has any. */
type WithSubRows<M, Own> = keyof Own extends never ? M : M & Own

/** The rows of a table, or of a group of it: a union. */
type RowsOf<T> = T extends AnyControlRow
  ? T | RowsOf<SubRows<T>>
  : { [K in keyof T]: RowsOf<T[K]> }[keyof T]

type ArgsOf<R> = R extends { args: (...args: infer A) => unknown } ? A : never
type OutOf<R> = R extends { run(...args: never[]): infer O } ? O : never
type ClientOf<R> = R extends { handle?: true }
  ? Tenant
  : R extends { fromWire?(...args: never[]): infer C }
    ? C
    : never
type RestOf<R> = R extends { tenant?: { args(orgId: string, ...rest: infer Rest): unknown } }
  ? Rest
  : never

/** What the in-process method of row `R` returns: the core function's result, or a tenant handle. */
type InProcessOf<R> = R extends { handle?: true } ? Promise<Tenant> : OutOf<R>

/**
 * The controls of `T` as in-process methods: each takes its row's arguments and returns what its
 * core function does (an organisation created comes back as its {@link Tenant}).
 */
export type InProcessControls<T = ControlTable> = {
  [K in keyof T]: T[K] extends AnyControlRow
    ? WithSubRows<(...args: ArgsOf<T[K]>) => InProcessOf<T[K]>, InProcessControls<SubRows<T[K]>>>
    : InProcessControls<T[K]>
}

/** The controls of `T` over HTTP: the in-process methods' names and arguments, each awaited. */
export type ClientControls<T = ControlTable> = {
  [K in keyof T]: T[K] extends AnyControlRow
    ? WithSubRows<(...args: ArgsOf<T[K]>) => Promise<ClientOf<T[K]>>, ClientControls<SubRows<T[K]>>>
    : ClientControls<T[K]>
}

type TenantRow = Extract<RowsOf<ControlTable>, { tenant?: { name: string } }>

/** The name a row gives its tenant method: `reset`, or `webhooks.add` for one in a group. */
type TenantNameOf<R> = R extends { tenant?: { name: infer N extends string } } ? N : never

/** The place a dotted name gives `M`: `webhooks.add` is `{ webhooks: { add: M } }`. */
type Placed<Name extends string, M> = Name extends `${infer Group}.${infer Rest}`
  ? { [K in Group]: Placed<Rest, M> }
  : { [K in Name]: M }

/** A union of objects as one object of all their members. */
type Merged<U> = (U extends unknown ? (u: U) => void : never) extends (all: infer All) => void
  ? { [K in keyof All]: All[K] extends (...args: never[]) => unknown ? All[K] : Merged<All[K]> }
  : never

/** The tenant handle's method names, dotted where grouped (`webhooks.add`). */
export type TenantMethodName = TenantNameOf<TenantRow>

/**
 * The tenant handle's methods: one per row that acts on one organisation, its `orgId` the
 * tenant's, at the place its dotted name says (`tenant.webhooks.add`).
 */
type TenantMethods = Merged<
  TenantRow extends infer R
    ? R extends TenantRow
      ? Placed<TenantNameOf<R>, (...args: RestOf<R>) => Promise<ClientOf<R>>>
      : never
    : never
>

/**
 * An organisation created for one test file or worker on a mock shared with others: its id, its
 * API key, the base URL its API answers on, and every control that acts on one organisation,
 * touching only it. The same type in-process (`createMockApi`) and over HTTP (`connectMockApi`),
 * so that a test moves between the two unchanged.
 *
 * @example
 * const tenant = await api.organisations.create({ users: [{ id: 'ada', registrationStatus: 'archived' }] })
 * await tenant.failNext('identify', { status: 500 })
 * expect(await tenant.calls('identify')).toHaveLength(1)
 * afterEach(() => tenant.reset())
 */
export type Tenant = TenantMethods & {
  readonly orgId: string
  /** Its API key, in clear: `Authorization: Bearer <apiKey>`. */
  readonly apiKey: string
  /** Where its API answers: the handlers' base URL in-process, the server's URL over HTTP. */
  readonly baseUrl: string
  /** Its API calls (of `operation` if given), oldest first: its journal's. */
  calls<O extends Operation = Operation>(operation?: O): Promise<CallOf<O>[]>
}

/** The in-process `organisations` controls (`api.organisations`). */
export type OrganisationControls = InProcessControls['organisations']

/** Calls `row` with `input`: the core function in-process, the endpoint over HTTP. */
export type Invoke = (row: AnyControlRow, input: unknown) => unknown

/**
 * Every row of the table with its place: `['organisations', 'create']`.
 *
 * @example controlRows().find(({ name }) => name === 'reset')?.row.path // '/__mock/reset'
 */
export function controlRows(): { name: string; path: string[]; row: AnyControlRow }[] {
  const rows: { name: string; path: string[]; row: AnyControlRow }[] = []
  const walk = (group: object, path: string[]) => {
    for (const [key, value] of Object.entries(group)) {
      const at = [...path, key]
      if (!isRow(value)) walk(value, at)
      else {
        rows.push({ name: at.join('.'), path: at, row: value })
        // A row's own rows, after it: its method carries theirs (`api.coverage.clear()`).
        walk(Object.fromEntries(Object.entries(value).filter(([, field]) => isRow(field))), at)
      }
    }
  }
  walk(controlTable, [])
  return rows
}

/** Whether `value` is a control row (a group of rows is not). */
function isRow(value: unknown): value is AnyControlRow {
  return typeof value === 'object' && value !== null && 'run' in value && 'method' in value
}

/**
 * The table's methods, nested as the table groups them, each calling its row through `invoke`
 * with the input its arguments give; a row with `handle` resolves to the tenant `handleOf` makes.
 */
export function controlMethods<S>(
  invoke: Invoke,
  handleOf: (created: { orgId: string; apiKey: string }) => Tenant,
): S {
  const methods: Record<string, Record<string, unknown>> = {}
  for (const { path, row } of controlRows()) {
    let group: Record<string, unknown> = methods
    for (const key of path.slice(0, -1)) {
      group[key] ??= {}
      group = group[key] as Record<string, unknown>
    }
    const argsOf = row.args as (...args: unknown[]) => unknown
    const call = (...args: unknown[]) => invoke(row, argsOf(...args))
    group[path.at(-1) as string] = row.handle
      ? async (...args: unknown[]) =>
          handleOf((await call(...args)) as { orgId: string; apiKey: string })
      : call
  }
  return methods as S
}

/**
 * The {@link Tenant} of organisation `orgId`: each row with a `tenant` method called through
 * `invoke` with the tenant's `orgId`, always as a promise; `calls` read from its journal.
 */
export function tenantHandle(
  invoke: Invoke,
  tenant: { orgId: string; apiKey: string; baseUrl: string },
): Tenant {
  const { orgId } = tenant
  const handle: Record<string, unknown> = { ...tenant }
  for (const { row } of controlRows()) {
    if (row.tenant) {
      const argsOf = row.tenant.args as (orgId: string, ...rest: unknown[]) => unknown
      // A dotted name is a method of a group: `webhooks.add` is `handle.webhooks.add`.
      const path = row.tenant.name.split('.')
      let group = handle
      for (const key of path.slice(0, -1)) {
        group[key] ??= {}
        group = group[key] as Record<string, unknown>
      }
      const call = async (...rest: unknown[]) => invoke(row, argsOf(orgId, ...rest))
      // An organisation created (a fork) comes back as its handle, on the same base URL.
      group[path.at(-1) as string] = row.handle
        ? async (...rest: unknown[]) => {
            const created = (await call(...rest)) as { orgId: string; apiKey: string }
            return tenantHandle(invoke, { ...created, baseUrl: tenant.baseUrl })
          }
        : call
    }
  }
  const requests = handle.requests as () => Promise<JournalEntry[]>
  handle.calls = async (operation?: Operation) => callsIn(await requests(), operation)
  return handle as Tenant
}

/**
 * How the in-process API calls a row: its core function, on `core`, with the input (a query read
 * with its schema, as over HTTP); `origin` is the mock's base URL.
 *
 * @example const invoke = inProcessInvoke(core, 'https://api.example.test')
 */
export function inProcessInvoke(core: MockCore, origin: string): Invoke {
  return (row, input) =>
    row.run(core, (row.carry === 'query' ? parseQuery(row, input) : input) as never, origin)
}
