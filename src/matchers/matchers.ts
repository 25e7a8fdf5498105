import * as z from 'zod'
import type { IdentifyUserRequest } from '../api/api-schemas.ts'
import { parseOptions } from '../base/errors.ts'
import type { Operation } from '../core/faults.ts'
import type { Call } from '../core/journal.ts'

/**
 * How many matching calls to expect, and of which answer. Without `times`, at least one; without
 * `status`, calls of every answer count; with `orgId`, only the calls of that organisation.
 *
 * @example callExpectationSchema.parse({ times: 1, status: 200 })
 */
export const callExpectationSchema = z.strictObject({
  times: z.int().min(0).optional(),
  status: z.int().optional(),
  /** Only the calls that name this organisation (a test worker's tenant). */
  orgId: z.string().min(1).optional(),
})

export type CallExpectation = z.input<typeof callExpectationSchema>

/** Every field optional, at any depth; arrays whole. */
export type DeepPartial<T> = T extends readonly unknown[]
  ? T
  : T extends object
    ? { [K in keyof T]?: DeepPartial<T[K]> }
    : T

/** What `toHaveIdentified` matches: any part of the identify body sent. */
export type IdentifyExpectation = DeepPartial<IdentifyUserRequest>

/** What `toHaveDeleted` matches: the organisation, the user, or both. */
export type DeleteExpectation = { orgId?: string; id?: string }

/** What the matchers use of the test runner's `this`: vitest and jest both give it. */
export interface MatcherHost {
  equals(actual: unknown, expected: unknown): boolean
  isNot?: boolean
}

/** A matcher's answer, as vitest and jest take it. */
export interface MatcherResult {
  pass: boolean
  message: () => string
}

/** The calls listed in a failure message at most; the oldest beyond it are counted. */
const listedCalls = 20

/** The operations a matcher checks, with the past tense its failure message uses. */
const verbs = { identify: 'identified', delete: 'deleted' } as const

/**
 * Matchers for `expect.extend(matchers)` (vitest and jest) over a mock's calls: `toHaveIdentified`
 * and `toHaveDeleted`. Each matches a deep partial of what the call asked (asymmetric matchers
 * such as `expect.any(String)` allowed), over every call of the operation unless `status`
 * narrows it (the status the mock answered: a call applied before a failure lost its answer counts
 * by it); a failure lists the calls that were made, each with the failure it met, if any. They take an in-process mock, or, awaited,
 * a client of a server (`connectMockApi`) or a tenant (`organisations.create()`), whose calls are
 * read over HTTP.
 *
 * @example
 * expect.extend(matchers)
 * expect(api).toHaveIdentified({ id: 'user-42', data: { firstName: 'Ada' } }, { times: 1 })
 * expect(api).toHaveDeleted({ orgId: 'acme', id: 'user-42' }, { status: 200 })
 * await expect(tenant).toHaveIdentified({ id: 'user-42' })
 */
export const matchers = {
  toHaveIdentified(
    this: MatcherHost,
    received: unknown,
    request?: IdentifyExpectation,
    options?: CallExpectation,
  ): MatcherResult | Promise<MatcherResult> {
    return matchCalls(this, received, 'identify', request, options)
  },
  toHaveDeleted(
    this: MatcherHost,
    received: unknown,
    request?: DeleteExpectation,
    options?: CallExpectation,
  ): MatcherResult | Promise<MatcherResult> {
    return matchCalls(this, received, 'delete', request, options)
  },
}

/** A mock in-process, a client of a server, or a tenant of either (its calls awaited). */
interface CallSource {
  calls(operation: Operation, scope?: { orgId?: string }): Call[] | Promise<Call[]>
}

function matchCalls(
  host: MatcherHost,
  received: unknown,
  operation: keyof typeof verbs,
  expected: unknown,
  options: CallExpectation = {},
): MatcherResult | Promise<MatcherResult> {
  if (!isCallSource(received)) {
    throw new TypeError(
      `expect(…).${matcherName(operation)}() takes a mock from createMockApi(), a client from connectMockApi() or a tenant; got ${show(received)}`,
    )
  }
  const { times, status, orgId } = parseOptions(callExpectationSchema, options)
  const listed = received.calls(operation, { orgId })
  const judge = (calls: Call[]) =>
    judgeCalls(host, operation, calls, expected, { times, status, orgId })
  return Array.isArray(listed) ? judge(listed) : listed.then(judge)
}

function judgeCalls(
  host: MatcherHost,
  operation: keyof typeof verbs,
  calls: Call[],
  expected: unknown,
  { times, status, orgId }: CallExpectation,
): MatcherResult {
  const matching = calls.filter(
    (call) =>
      (status === undefined || call.status === status) &&
      (expected === undefined || matchesPartially(host, call.request, expected)),
  )
  const pass = times === undefined ? matching.length > 0 : matching.length === times
  const what = [
    expected === undefined ? 'any request' : show(expected),
    status === undefined ? '' : ` answered ${status}`,
    orgId === undefined ? '' : ` for ${orgId}`,
    times === undefined ? '' : ` exactly ${count(times)}`,
  ].join('')
  const message = () =>
    [
      `expected the mock ${host.isNot ? 'not ' : ''}to have ${verbs[operation]} ${what}, ` +
        `but ${count(matching.length)} matched.`,
      '',
      describeCalls(operation, calls),
    ].join('\n')
  return { pass, message }
}

/**
 * Whether `actual` has every field of `expected`, at any depth: plain objects are matched field
 * by field, anything else (arrays, asymmetric matchers, values) by the host's `equals`.
 */
function matchesPartially(host: MatcherHost, actual: unknown, expected: unknown): boolean {
  if (!isPlainObject(expected)) return host.equals(actual, expected)
  if (!isPlainObject(actual)) return false
  return Object.entries(expected).every(
    ([key, value]) => Object.hasOwn(actual, key) && matchesPartially(host, actual[key], value),
  )
}

function describeCalls(operation: Operation, calls: Call[]): string {
  if (calls.length === 0) return `No ${operation} calls were made.`
  const shown = calls.slice(-listedCalls)
  const lines = shown.map(
    (call, i) =>
      `  ${calls.length - shown.length + i + 1}. ${call.status} ${show(call.request)}${failureOf(call)}`,
  )
  const omitted = calls.length - shown.length
  return [
    `${operation} calls made (${calls.length}), oldest first:`,
    ...(omitted > 0 ? [`  … ${omitted} older not shown`] : []),
    ...lines,
  ].join('\n')
}

/** What a call met instead of its answer, as its line ends: ` (met reset, applied)`. */
function failureOf({ failure }: Call): string {
  if (!failure) return ''
  const { kind, status, applied } = failure
  return ` (met ${kind}${status === undefined ? '' : ` ${status}`}${applied ? ', applied' : ''})`
}

/**
 * A value as one line of JSON, its asymmetric matchers (`expect.any(String)`) shown as the test
 * runner names them (`Any<String>`).
 */
function show(value: unknown): string {
  const named: string[] = []
  const json = JSON.stringify(value, (_key, field: unknown) => {
    if (!isAsymmetricMatcher(field)) return field
    named.push(field.toAsymmetricMatcher?.() ?? String(field))
    return `${placeholder}${named.length - 1}${placeholder}`
  })
  if (json === undefined) return String(value)
  return json.replace(
    new RegExp(`"${placeholder}(\\d+)${placeholder}"`, 'g'),
    (_match, index: string) => named[Number(index)] ?? '',
  )
}

/** A private-use character: `JSON.stringify` leaves it as it is, and no request holds it. */
const placeholder = '\uE000'

interface AsymmetricMatcher {
  asymmetricMatch(other: unknown): boolean
  toAsymmetricMatcher?(): string
}

function isAsymmetricMatcher(value: unknown): value is AsymmetricMatcher {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Partial<AsymmetricMatcher>).asymmetricMatch === 'function'
  )
}

const count = (n: number) => `${n} ${n === 1 ? 'call' : 'calls'}`

const matcherName = (operation: Operation) =>
  operation === 'identify' ? 'toHaveIdentified' : 'toHaveDeleted'

function isCallSource(value: unknown): value is CallSource {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Partial<CallSource>).calls === 'function'
  )
}

/**
 * Whether `value` is a plain object of any realm: jest runs a test file in a realm of its own,
 * while the calls a client reads come from `fetch`'s JSON, made in Node's.
 */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false
  const prototype = Object.getPrototypeOf(value)
  return prototype === null || Object.getPrototypeOf(prototype) === null
}
