import { createHash } from 'node:crypto'
import { expect } from 'vitest'
import type { UserRecord } from '../../src/root/advanced.ts'
import type { MockState } from '../../src/root/index.ts'

/**
 * An independent statement of the API's contract (the API description, and
 * docs/guides/behaviour.md) for the property-based tests: given a request
 * and the state before it, the exact answer and the exact state after it. It shares no code with the mock, so the two cannot agree by construction.
 */

/** A request as the mock receives it: the target as the transport delivers it. */
export interface OracleRequest {
  method: string
  target: string
  authorization: string | null
  contentType: string | null
  body: Uint8Array | null
}

/** What the mock was started with and holds before the request. */
export interface World {
  /** API key in clear → its organisation. */
  keys: ReadonlyMap<string, string>
  state: MockState
  strictUserGroups: boolean
  authFailureStatus: 401 | 403
  /** `formatDateTime` of the mock's fixed clock. */
  now: string
  tokenTtlSeconds: number
  /** A fault queued for one operation, consumed by the next call that passes the credentials. */
  fault?: { operation: 'identify' | 'delete'; status: number }
}

export type Expected =
  | { kind: 'error'; status: number; message: string; headers: Record<string, string> }
  | { kind: 'identified'; orgId: string; request: IdentifyBody }
  | { kind: 'deleted'; orgId: string; id: string }

interface IdentifyBody {
  id: string
  orgId: string
  data?: Record<string, unknown>
}

const messages: Record<number, string> = {
  400: 'Invalid request parameters',
  401: 'Unauthorized',
  403: 'Forbidden',
  500: 'Internal server error',
}

const error = (status: number, message: string, headers: Record<string, string> = {}) =>
  ({ kind: 'error', status, message, headers }) as const

/** The path of a request target: up to the first `?` or `#`. */
export function pathOf(target: string): string {
  return /^[^?#]*/.exec(target)?.[0] ?? ''
}

/** The route a method and path reach, or the routing error; parameters percent-decoded once. */
export function routeOf(
  method: string,
  path: string,
): { operation: 'identify' } | { operation: 'delete'; orgId: string; id: string } | Expected {
  if (path === '/api/v1/users/identify') {
    return method === 'POST'
      ? { operation: 'identify' }
      : error(405, 'Method not allowed', { allow: 'POST' })
  }
  const match = /^\/api\/v1\/users\/([^/]*)\/([^/]*)$/.exec(path)
  const orgId = decodeOnce(match?.[1])
  const id = decodeOnce(match?.[2])
  if (!orgId || !id) return error(404, 'Not found')
  return method === 'DELETE'
    ? { operation: 'delete', orgId, id }
    : error(405, 'Method not allowed', { allow: 'DELETE' })
}

function decodeOnce(segment: string | undefined): string | undefined {
  if (!segment) return undefined
  try {
    return decodeURIComponent(segment)
  } catch {
    return undefined
  }
}

/**
 * The organisation of `Authorization: Bearer <key>`: the scheme in any case, the parts separated
 * and surrounded only by spaces and tabs (HTTP's optional whitespace), the key known exactly.
 */
export function organisationOf(world: World, authorization: string | null): string | undefined {
  const key = authorization?.match(/^[ \t]*bearer[ \t]+([^ \t]+)[ \t]*$/i)?.[1]
  return key === undefined ? undefined : world.keys.get(key)
}

/** A media type of exactly `application/json`, in any case, parameters allowed. */
export function isJsonMediaType(contentType: string | null): boolean {
  return contentType !== null && /^[ \t]*application\/json[ \t]*(;.*)?$/is.test(contentType)
}

const profileStrings = ['firstName', 'lastName', 'country', 'region']
const sexes = ['male', 'female']
const ageBrackets = ['18-24', '25-34', '35-44', '45-54', '55-64', '65+']

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
const onlyKeys = (value: Record<string, unknown>, allowed: string[]) =>
  Object.keys(value).every((key) => allowed.includes(key))
/** A string of `min` to `max` UTF-16 code units. */
const isStringOf = (value: unknown, min: number, max: number) =>
  typeof value === 'string' && value.length >= min && value.length <= max
/** An `id` or `orgId`: 1 to 1,024 code units, every surrogate in a pair. */
const isId = (value: unknown) =>
  isStringOf(value, 1, 1024) && encodeURIComponentOrUndefined(value as string) !== undefined

/** `encodeURIComponent` throws exactly on a lone surrogate. */
function encodeURIComponentOrUndefined(value: string): string | undefined {
  try {
    return encodeURIComponent(value)
  } catch {
    return undefined
  }
}

/** IdentifyUserRequest, every object closed. */
export function isIdentifyBody(value: unknown): value is IdentifyBody {
  if (!isObject(value) || !onlyKeys(value, ['id', 'orgId', 'data'])) return false
  if (!isId(value.id) || !isId(value.orgId)) return false
  if (!Object.hasOwn(value, 'data')) return true
  const data = value.data
  if (!isObject(data) || !onlyKeys(data, [...profileStrings, 'sex', 'ageBracket', 'userGroups'])) {
    return false
  }
  return Object.entries(data).every(([key, field]) => {
    if (key === 'sex') return sexes.includes(field as string)
    if (key === 'ageBracket') return ageBrackets.includes(field as string)
    if (key === 'userGroups') {
      return (
        Array.isArray(field) &&
        field.length <= 1000 &&
        field.every((group) => isStringOf(group, 1, 256))
      )
    }
    return isStringOf(field, 0, 1024)
  })
}

/** The body as the API reads it: UTF-8 (invalid bytes refused), then JSON. */
function decodeJson(body: Uint8Array): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body)) }
  } catch {
    return { ok: false }
  }
}

/**
 * What the journal records of `request` beyond its method, path and status: the operation of a
 * matched route and what it asked (identify's body as JSON when it is JSON of at most 16 KiB,
 * else null; delete's decoded path parameters); nothing for any other request. An identify
 * refused before its key is authenticated has its body not read (null), on every way in; a
 * refused identify's body has every string that is a key, token or session the world holds
 * redacted. An identify answered 200 notes its answer shape: `full`, the shape of every mock the
 * oracle knows.
 */
export function expectedCall(
  world: World,
  request: OracleRequest,
  status: number,
): { operation?: string; request?: unknown; shape?: string; failure?: unknown } {
  const route = routeOf(request.method, pathOf(request.target))
  if (!('operation' in route)) return {}
  const caller = organisationOf(world, request.authorization)
  // A fault taken (by a call past its credentials) is noted as the failure it gave.
  const failure =
    caller !== undefined && world.fault?.operation === route.operation
      ? { failure: { kind: 'status', status: world.fault.status, applied: false } }
      : {}
  if (route.operation === 'delete') {
    return { operation: 'delete', request: { orgId: route.orgId, id: route.id }, ...failure }
  }
  if (caller === undefined) {
    return { operation: 'identify', request: null }
  }
  const { body } = request
  const json = body && body.byteLength <= 16 * 1024 ? decodeJson(body) : ({ ok: false } as const)
  const value = json.ok ? json.value : null
  return status === 200
    ? { operation: 'identify', request: value, shape: 'full' }
    : { operation: 'identify', request: redactedIn(world, value), ...failure }
}

function redactedIn(world: World, value: unknown): unknown {
  const hashes = new Set([
    ...world.state.signInTokens.map((t) => t.tokenHash),
    ...world.state.webViewSessions.map((s) => s.sessionHash),
  ])
  const isSecret = (text: string) =>
    world.keys.has(text) || hashes.has(createHash('sha256').update(text).digest('hex'))
  const walk = (node: unknown): unknown => {
    if (typeof node === 'string') return isSecret(node) ? '[redacted]' : node
    if (Array.isArray(node)) return node.map(walk)
    if (!isObject(node)) return node
    return Object.fromEntries(
      Object.entries(node).map(([key, field]) => [isSecret(key) ? '[redacted]' : key, walk(field)]),
    )
  }
  return walk(value)
}

/** The answer the contract gives `request` in `world`. */
export function expectedAnswer(world: World, request: OracleRequest): Expected {
  const route = routeOf(request.method, pathOf(request.target))
  if ('kind' in route) return route
  const callerOrgId = organisationOf(world, request.authorization)
  if (callerOrgId === undefined) {
    return world.authFailureStatus === 403
      ? error(403, 'Forbidden')
      : error(401, 'Unauthorized', { 'www-authenticate': 'Bearer' })
  }
  if (world.fault?.operation === route.operation) {
    return error(world.fault.status, faultMessage(route.operation, world.fault.status))
  }
  if (route.operation === 'delete') {
    if (route.orgId !== callerOrgId) return error(403, 'Forbidden')
    const exists = world.state.users.some((u) => u.orgId === route.orgId && u.id === route.id)
    return exists
      ? { kind: 'deleted', orgId: route.orgId, id: route.id }
      : error(404, 'User not found')
  }
  const invalid = error(400, messages[400] as string)
  if (!isJsonMediaType(request.contentType) || !request.body || request.body.byteLength === 0) {
    return invalid
  }
  if (request.body.byteLength > 1024 * 1024) return invalid
  const json = decodeJson(request.body)
  if (!json.ok || !isIdentifyBody(json.value)) return invalid
  const body = json.value
  if (body.orgId !== callerOrgId) return error(403, 'Forbidden')
  if (world.strictUserGroups && missingGroups(world, body).length > 0) return invalid
  return { kind: 'identified', orgId: callerOrgId, request: body }
}

function faultMessage(operation: 'identify' | 'delete', status: number): string {
  return operation === 'delete' && status === 404 ? 'User not found' : (messages[status] ?? '')
}

function groupsSent(body: IdentifyBody): string[] | undefined {
  const groups = body.data?.userGroups as string[] | undefined
  return groups && [...new Set(groups)]
}

function missingGroups(world: World, body: IdentifyBody): string[] {
  return (groupsSent(body) ?? []).filter(
    (groupId) =>
      !world.state.userGroups.some((g) => g.orgId === body.orgId && g.groupId === groupId),
  )
}

/** The answer of the mock as a test reads it off any transport. */
export interface Observed {
  status: number
  header(name: string): string | null
  /** `undefined` when the transport sends no body (an answer to HEAD). */
  text: string | undefined
}

/**
 * Asserts that the mock answered exactly `expected` and left exactly the state it describes: an
 * error changes nothing; a success changes only what the contract says it does.
 */
export function expectAnswer(
  world: World,
  expected: Expected,
  observed: Observed,
  after: MockState,
): void {
  if (expected.kind === 'error') {
    expect({ status: observed.status, body: parseBody(observed) }).toEqual({
      status: expected.status,
      body:
        observed.text === undefined
          ? undefined
          : { code: expected.status, message: expected.message },
    })
    expect(observed.header('content-type')).toBe('application/json')
    for (const [name, value] of Object.entries(expected.headers)) {
      expect(observed.header(name)).toBe(value)
    }
    if (!expected.headers['www-authenticate'])
      expect(observed.header('www-authenticate')).toBeNull()
    expectSameState(after, world.state)
    return
  }
  expect(observed.status).toBe(200)
  expect(observed.header('content-type')).toBe('application/json')
  const body = parseBody(observed)
  if (expected.kind === 'deleted') {
    expect(body).toEqual({ id: expected.id, deleted: true })
    expectSameState(after, stateAfterDelete(world.state, expected.orgId, expected.id))
    return
  }
  const { state, user } = stateAfterIdentify(world, expected, body)
  const progress = world.state.learningProgress.find((p) => p.userId === user.userId)
  const path = world.state.learningPaths.find(
    (p) => p.orgId === user.orgId && p.learningPathId === progress?.learningPathId,
  )
  const { orgId: _o, id: _i, ...profile } = user
  expect(body).toEqual({
    id: expected.request.id,
    token: expect.stringMatching(/^[0-9a-f]{64}$/),
    data: {
      ...profile,
      learningPathId: progress?.learningPathId ?? null,
      learningPathName: path?.name ?? null,
      learningPathStartDate: progress?.startDate ?? null,
      learningPathDueDate: progress?.dueDate ?? null,
      learningPathCompletedAt: progress?.completedAt ?? null,
    },
  })
  expectSameState(after, state)
}

function parseBody(observed: Observed): unknown {
  if (observed.text === undefined) return undefined
  try {
    return JSON.parse(observed.text)
  } catch {
    return { notJson: observed.text }
  }
}

function expectSameState(actual: MockState, expected: MockState) {
  // Most cases agree; a structural comparison first keeps 1,000 runs fast, `toEqual` explains.
  if (JSON.stringify(actual) !== JSON.stringify(expected)) expect(actual).toEqual(expected)
}

function stateAfterDelete(state: MockState, orgId: string, id: string): MockState {
  const user = state.users.find((u) => u.orgId === orgId && u.id === id) as UserRecord
  const other = <T extends { userId: string }>(records: T[]) =>
    records.filter((r) => r.userId !== user.userId)
  return {
    ...state,
    users: state.users.filter((u) => u !== user),
    learningProgress: other(state.learningProgress),
    certificates: other(state.certificates),
    signInTokens: other(state.signInTokens),
    webViewSessions: other(state.webViewSessions),
  }
}

function stateAfterIdentify(
  world: World,
  expected: Extract<Expected, { kind: 'identified' }>,
  body: unknown,
): { state: MockState; user: UserRecord } {
  const { state, now } = world
  const { id, orgId, data = {} } = expected.request
  const { userGroups: _, ...fields } = data
  const groups = groupsSent(expected.request)
  const existing = state.users.find((u) => u.orgId === orgId && u.id === id)
  const response = body as { token?: string; data?: { userId?: string } }
  const user: UserRecord = existing
    ? { ...existing, ...fields, ...(groups && { userGroups: groups }), lastActive: now }
    : {
        userId: String(response.data?.userId),
        orgId,
        id,
        registrationStatus: 'registered',
        registeredAt: now,
        lastActive: now,
        firstName: null,
        lastName: null,
        country: null,
        region: null,
        sex: null,
        ageBracket: null,
        ...fields,
        userGroups: groups ?? [],
      }
  if (!existing) {
    // A new user's userId is new: no record anywhere refers to it yet.
    expect(JSON.stringify(state)).not.toContain(`"${user.userId}"`)
  }
  const expires = new Date(Date.parse(now) + world.tokenTtlSeconds * 1000)
  return {
    user,
    state: {
      ...state,
      users: existing
        ? state.users.map((u) => (u === existing ? user : u))
        : [...state.users, user],
      userGroups: [
        ...state.userGroups,
        ...missingGroups(world, expected.request).map((groupId) => ({
          orgId,
          groupId,
          name: groupId,
        })),
      ],
      signInTokens: [
        ...state.signInTokens,
        {
          tokenHash: createHash('sha256')
            .update(response.token ?? '')
            .digest('hex'),
          userId: user.userId,
          orgId,
          issuedAt: `${new Date(now).toISOString().slice(0, 23)}+00:00`,
          expiresAt: `${expires.toISOString().slice(0, 23)}+00:00`,
          redeemedAt: null,
        },
      ],
    },
  }
}
