import type * as z from 'zod'
import { parseOptions, type WireResponse } from '../base/errors.ts'
import type { MockCore } from '../core/mock-core.ts'

/** The methods a control endpoint answers to. */
export type ControlMethod = 'GET' | 'POST' | 'PUT' | 'DELETE'

/**
 * Where a control's input travels over HTTP, besides the path's parameters: `query`, the query
 * string (parsed with the row's `input` schema, over HTTP and in-process alike); `body`, the
 * fields of a JSON object body; `{ bodyOf }`, the body is the value of that one field of the
 * input; `none`, nothing more.
 */
export type Carry = 'query' | 'body' | { readonly bodyOf: string } | 'none'

/**
 * A row's HTTP answer when it is not its result as JSON with the row's `status`: a status of its
 * own (`putUser`'s 201 or 200), a body built from the result (`shapes.cases`' `{cases}`).
 */
export interface WireOf {
  status: number
  body?: unknown
}

/**
 * One control of the mock, declared once: its endpoint (method, path, where its input travels,
 * status and schemas), its scope, how the in-process method and the tenant handle take their
 * arguments, and the core function it runs. The HTTP route (behind the Host, cross-site and token
 * rules), the in-process `MockApi` method, the tenant handles, `connectMockApi`, the OpenAPI
 * document of the controls and the control table of the server guide are all read from it (see
 * `control-table.ts`).
 *
 * `Args` are the in-process method's arguments, `Input` what they give, `Out` what the core
 * function returns in-process, `Client` what the client resolves to (`Out`, awaited, unless the
 * answer over HTTP says less), `Tenant` the tenant handle's method name and `Rest` its arguments.
 */
export interface ControlRow<
  Args extends unknown[] = never,
  Input = unknown,
  Out = unknown,
  Client = unknown,
  Tenant extends string = string,
  Rest extends unknown[] = never,
  Handle extends boolean = boolean,
> {
  readonly method: ControlMethod
  /** The path; its `:name` segments are parameters, fields of the input. */
  readonly path: string
  /** One line: what it does, for the docs table and the OpenAPI document. */
  readonly summary: string
  readonly carry: Carry
  /**
   * The input, path parameters included: what the OpenAPI document and the docs show, and what a
   * query is parsed with. A body's values are checked by the core function, whose refusal says
   * what is wrong (a `TypeError` in-process, 400 over HTTP).
   */
  readonly input: z.ZodType
  /** The HTTP answer's body, as JSON; none for a 204. */
  readonly output?: z.ZodType
  /** The status of its answer over HTTP. */
  readonly status: 200 | 201 | 202 | 204
  /** The in-process method's arguments, as the input they give. */
  readonly args: (...args: Args) => Input
  /**
   * For a row that acts on one organisation: the tenant handle's method, its name and its
   * arguments (after the tenant's `orgId`) as the input they give.
   */
  readonly tenant?: { readonly name: Tenant; args(orgId: string, ...rest: Rest): Input }
  /**
   * The core function: what the control does. `origin` is where the caller reached the mock (the
   * server's `http://` and `Host`, or the in-process base URL).
   */
  run(core: MockCore, input: Input, origin: string): Out
  /** Its answer over HTTP, when it is not `status` and the result as JSON. */
  toWire?(result: Awaited<Out>, core: MockCore, input: Input): WireOf | Promise<WireOf>
  /** The client's result from the answer, when it is not the JSON body. */
  fromWire?(status: number, body: unknown): Client
  /** The client's result for an error answer that stands for one (`webhooks.remove`'s `false`). */
  fromError?(code: string): { value: Client } | undefined
  /** Answered over HTTP in a way of its own (`state`, written as it is read). */
  serve?(core: MockCore, input: Input): Promise<WireResponse>
  /** Served without the control token and with the controls off: the health check. */
  readonly always?: true
  /** Takes an empty body as `{}` (a `body` row whose fields are all optional). */
  readonly emptyBody?: true
  /** Its result is an organisation created: the in-process API and the client give its tenant handle. */
  readonly handle?: Handle
}

/** Any row of the control table. */
export type AnyControlRow = ControlRow<never, unknown, unknown, unknown, string, never, boolean>

/**
 * A control row, its types inferred from its functions: the arguments and the input from `args`,
 * the in-process result from `run`, the client's from `fromWire` (the in-process result
 * otherwise), the tenant method's name and arguments from `tenant`.
 *
 * @example
 * const health = control({ method: 'GET', path: '/__mock/health', args: () => ({}), run: () => ({ status: 'ok' }), … })
 */
export function control<
  const Args extends unknown[],
  Input,
  Out,
  Client = Awaited<Out>,
  const Tenant extends string = never,
  Rest extends unknown[] = never,
  const Handle extends boolean = false,
>(row: {
  method: ControlMethod
  path: string
  summary: string
  carry: Carry
  input: z.ZodType
  output?: z.ZodType
  status: 200 | 201 | 202 | 204
  args: (...args: Args) => Input
  tenant?: { name: Tenant; args: (orgId: string, ...rest: Rest) => Input }
  run: (core: MockCore, input: Input, origin: string) => Out
  toWire?: (result: Awaited<Out>, core: MockCore, input: Input) => WireOf | Promise<WireOf>
  fromWire?: (status: number, body: unknown) => Client
  fromError?: (code: string) => { value: Client } | undefined
  serve?: (core: MockCore, input: Input) => Promise<WireResponse>
  always?: true
  emptyBody?: true
  handle?: Handle
}): ControlRow<Args, Input, Out, Client, Tenant, Rest, Handle> {
  return row
}

/**
 * The path parameters of `path`, by name, in order.
 *
 * @example paramsOf('/__mock/organisations/:orgId/users/:id') // ['orgId', 'id']
 */
export function paramsOf(path: string): string[] {
  return path
    .split('/')
    .filter((segment) => segment.startsWith(':'))
    .map((segment) => segment.slice(1))
}

/**
 * A query of `row` read with its input schema (numbers from their text): the input, or a
 * `TypeError` that says what is wrong (400 over HTTP).
 *
 * @example parseQuery(controlTable.requests, { limit: '5' }) // { limit: 5 }
 */
export function parseQuery(row: AnyControlRow, query: unknown): unknown {
  return parseOptions(row.input, query as never, 'query')
}
