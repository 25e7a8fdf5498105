import type * as z from 'zod'
import { withFastAccept } from '../api/fast-accept.ts'
import { type ApiErrorCode, jsonResponse, type WireResponse } from '../base/errors.ts'
import { parseJsonBody, type WireRequest } from '../base/wire.ts'
import type { Answered, RuleContext } from '../rules/context.ts'
import { type JsonValue, journaledBody } from './journaled-body.ts'

/**
 * The parameters of a path template, percent-decoded.
 *
 * @example const params: PathParams<'/users/:orgId/:id'> = { orgId: 'org-1', id: 'u-1' }
 */
export type PathParams<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? { [K in Name | keyof PathParams<`/${Rest}`>]: string }
  : P extends `${string}:${infer Name}`
    ? { [K in Name]: string }
    : Record<never, string>

/** What a route's rule is given: its JSON body, read with its `body` schema, or its path parameters. */
type InputOf<P extends string, B> = B extends z.ZodType ? z.output<B> : PathParams<P>

/** What the journal keeps of a call: its JSON body (see {@link journaledBody}), or its path parameters. */
type AskedOf<P extends string, B> = B extends z.ZodType ? JsonValue : PathParams<P>

/** One route of the API, as its row in the route table declares it. */
export interface ApiRouteSpec<
  O extends string,
  P extends string,
  B extends z.ZodType | undefined,
  R,
  E extends readonly ApiErrorCode[],
> {
  method: 'GET' | 'POST' | 'DELETE'
  /** The path template: `:name` segments are parameters. */
  path: P
  operation: O
  /** The JSON body's schema, for a route that takes one. */
  body?: B
  /** The 200 body's schema. */
  response: z.ZodType<R>
  /** The errors the API description lists for it: the only statuses a forced fault may take. */
  errors: E
  /**
   * The kinds of 200 it gives, each with what it means, when there is more than one: the rule
   * names the kind of each answer (`Answered.outcome`). Contract coverage counts each apart.
   */
  successes?: Record<string, string>
  /**
   * The rule: runs once the caller is authenticated as `orgId` and the request is read; answers
   * its 200's body, and the answer shape it took.
   */
  run: (ctx: RuleContext, orgId: string, input: InputOf<P, B>) => Answered<R> | Promise<Answered<R>>
  /** Headers of every answer of the route, whatever its status. */
  headers?: Record<string, string>
  /** What the OpenAPI document says of it. */
  doc: { operationId: string; summary: string; description: string; ok: string }
}

/** A call of a route under way: what it asked, and its answer once authenticated. */
export interface RouteCall<O extends string, A> {
  /** What the call asked, before the journal redacts it (see `redactCall`). */
  call: { operation: O; request: A }
  /** The rule's answer, 200, with the route's `headers`, and its shape; its errors are thrown. */
  answer(
    ctx: RuleContext,
    orgId: string,
  ): Promise<{ response: WireResponse; shape?: string | undefined; outcome?: string | undefined }>
}

/**
 * A row of the API's route table: the spec, `begin`, which reads a matched request the way the
 * spec says (its body or its path parameters) and runs the spec's rule on it, and `withHeaders`,
 * which gives an error answer the route's `headers`.
 *
 * @example
 * apiRoute({ method: 'DELETE', path: '/api/v1/users/:orgId/:id', operation: 'delete', run: deleteUser, … })
 */
export function apiRoute<
  const O extends string,
  const P extends string,
  const E extends readonly ApiErrorCode[],
  R,
  B extends z.ZodType | undefined = undefined,
>(spec: ApiRouteSpec<O, P, B, R, E>) {
  const { operation, run } = spec
  // The body's schema, asked first by a check derived from it once (see `withFastAccept`).
  const body = spec.body && withFastAccept(spec.body)
  /** `response` with the route's `headers`: what every answer of the route carries. */
  const withHeaders = (response: WireResponse): WireResponse =>
    spec.headers ? { ...response, headers: { ...response.headers, ...spec.headers } } : response
  // Every 200 of the route carries the same headers: built once, shared by its answers (no
  // transport changes an answer's headers in place).
  const okHeaders = Object.freeze(withHeaders(jsonResponse(200, null)).headers)
  /** The rule's result as the route's 200: serialised once, here, whatever reads it next. */
  const ok = (result: R): WireResponse => ({
    status: 200,
    headers: okHeaders,
    body: JSON.stringify(result),
  })
  const begin = (
    request: WireRequest,
    params: Record<string, string>,
  ): RouteCall<O, AskedOf<P, B>> => {
    // The matcher gives every parameter of the template, so `params` is the route's PathParams.
    const asked = (body ? journaledBody(request) : params) as AskedOf<P, B>
    return {
      call: { operation, request: asked },
      answer: async (ctx, orgId) => {
        const input = (body ? parseJsonBody(request, body, asked ?? undefined) : asked) as InputOf<
          P,
          B
        >
        const { body: result, shape, outcome } = await run(ctx, orgId, input)
        return { response: ok(result), shape, outcome }
      },
    }
  }
  // Whether the call reads a body at all: one refused, or of a route without one, never does.
  return { ...spec, hasBody: spec.body !== undefined, begin, withHeaders }
}
