import { ApiError, type ApiErrorCode, apiErrors } from '../base/errors.ts'
import { describeIssues } from '../base/issues.ts'
import { readBytes } from '../base/read-bytes.ts'
import { type AnyControlRow, paramsOf } from '../control/control-row.ts'
import {
  type ClientControls,
  controlMethods,
  type Invoke,
  type Tenant,
  tenantHandle,
} from '../control/control-surfaces.ts'
import { type CallOf, type CallScope, callsIn } from '../core/journal.ts'
import type { Operation } from '../core/routes.ts'
import type { Credentials } from '../model/dataset.ts'
import { MockApiClientError } from './client-error.ts'

/** How {@link connectMockApi} reaches the server. */
export interface ConnectOptions {
  /** The server's `--control-token`, sent as `Authorization: Bearer` on every control call. */
  controlToken?: string
  /**
   * How long one control call may take, its answer read whole, in milliseconds (30,000 by
   * default; a whole number from 1 to 2,147,483,647, the longest timer the platform keeps): past
   * it, the call rejects with a {@link MockApiClientError} `timeout`.
   */
  timeoutMs?: number
  /**
   * The most bytes of one answer the client reads (512 MiB by default, twice the state a server
   * holds by default; a whole number from 1): past it, the call rejects with a
   * {@link MockApiClientError} `invalid-answer`, the rest left unread.
   */
  maxAnswerBytes?: number
}

const decoder = new TextDecoder()

/** How long a control call may take by default, in milliseconds. */
const defaultTimeoutMs = 30_000
/** The longest timer the platform keeps, in milliseconds (2^31 − 1): a longer one fires at once. */
const maxTimeoutMs = 2 ** 31 - 1
/** The most bytes of an answer the client reads by default. */
const defaultMaxAnswerBytes = 512 * 1024 * 1024

/**
 * `value` of option `name`, or `fallback` when absent; a `TypeError` naming the bounds when it is
 * not a whole number from 1 to `max`.
 */
function wholeOption(name: string, value: unknown, fallback: number, max: number): number {
  if (value === undefined) return fallback
  if (typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= max) {
    return value
  }
  throw new TypeError(
    `connectMockApi: ${name} must be a whole number from 1 to ${max}, not ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`,
  )
}

/**
 * A running standalone server's controls over HTTP: every control of the control table, with the
 * in-process `MockApi`'s names and arguments, each awaited. Every error answer rejects with an
 * {@link ApiError} carrying its status (a 400's message says what is wrong); no answer in time, no
 * answer at all or one that is not the endpoint's (its body checked against the control's output
 * schema, and read up to `maxAnswerBytes`), with a {@link MockApiClientError}.
 */
export type MockApiClient = ClientControls & {
  /** The server's URL, as given (without a trailing `/`). */
  readonly url: string
  /**
   * Resolves once the server answers its health check as the mock (its name in the answer);
   * rejects when it does not answer, or answers as another server.
   */
  readonly ready: Promise<void>
  /** The organisations and their API keys in clear, as the banner prints them. */
  readonly credentials: Promise<Credentials[]>
  /** The API calls (of `operation` if given), oldest first; with `{ orgId }`, only that organisation's. */
  calls<O extends Operation = Operation>(operation?: O, scope?: CallScope): Promise<CallOf<O>[]>
}

/**
 * Connects to a running standalone server (`identify-api-mock serve`, `startServer`, the image)
 * and gives its control endpoints as the in-process `MockApi` gives its controls: same names,
 * same arguments, awaited, each read from its row of the control table. `organisations.create()`
 * resolves to a {@link Tenant} whose controls touch only it. Uses only the platform's `fetch`.
 *
 * @example
 * import { connectMockApi } from 'identify-api-mock/client'
 *
 * const api = connectMockApi('http://127.0.0.1:4010')
 * const tenant = await api.organisations.create()
 * await tenant.failNext('identify', { status: 500 })
 * const calls = await tenant.calls('identify')
 * await tenant.remove()
 */
export function connectMockApi(url: string, options: ConnectOptions = {}): MockApiClient {
  const base = url.replace(/\/+$/, '')
  const authorization = options.controlToken && `Bearer ${options.controlToken}`

  const timeoutMs = wholeOption('timeoutMs', options.timeoutMs, defaultTimeoutMs, maxTimeoutMs)
  const maxAnswerBytes = wholeOption(
    'maxAnswerBytes',
    options.maxAnswerBytes,
    defaultMaxAnswerBytes,
    Number.MAX_SAFE_INTEGER,
  )

  const invoke: Invoke = async (row, input) => {
    const answer = await send(row, input)
    if (answer.status < 200 || answer.status >= 300) {
      const error = errorOf(answer)
      const instead = error instanceof ApiError ? row.fromError?.(error.code) : undefined
      if (instead) return instead.value
      throw error
    }
    let json: unknown
    try {
      json = answer.text === '' ? undefined : JSON.parse(answer.text)
    } catch (error) {
      throw new MockApiClientError(
        'invalid-answer',
        `${answer.target} answered ${answer.status} with a body that is not JSON: ${JSON.stringify(answer.text.slice(0, 100))}`,
        { cause: error },
      )
    }
    if (row.output) {
      const checked = row.output.safeParse(json)
      if (!checked.success) {
        throw new MockApiClientError(
          'invalid-answer',
          `${answer.target} answered ${answer.status} with a body that is not the endpoint's: ${describeIssues(checked.error.issues, 'body')}`,
        )
      }
    }
    return row.fromWire ? row.fromWire(answer.status, json) : json
  }

  /** The answer to a call of `row`, its body read whole, within the timeout; typed errors otherwise. */
  const send = async (row: AnyControlRow, input: unknown): Promise<Answer> => {
    const body = bodyOf(row, input)
    const url = `${base}${targetOf(row, input)}`
    const target = `${row.method} ${url}`
    const signal = AbortSignal.timeout(timeoutMs)
    try {
      const response = await fetch(url, {
        method: row.method,
        headers: {
          ...(authorization && { authorization }),
          ...(body !== undefined && { 'content-type': 'application/json' }),
        },
        body,
        signal,
      })
      const { status, statusText } = response
      const read = response.body && (await readBytes(response.body, maxAnswerBytes))
      if (read && !read.complete) {
        throw new MockApiClientError(
          'invalid-answer',
          `${target} answered ${status} with a body past ${maxAnswerBytes} bytes (maxAnswerBytes): not read further`,
        )
      }
      return { target, status, statusText, text: read ? decoder.decode(read.bytes) : '' }
    } catch (error) {
      if (error instanceof MockApiClientError) throw error
      throw signal.aborted
        ? new MockApiClientError('timeout', `${target}: no answer within ${timeoutMs} ms`, {
            cause: error,
          })
        : new MockApiClientError('unreachable', `${target}: no answer (${reasonOf(error)})`, {
            cause: error,
          })
    }
  }
  const controls = controlMethods<ClientControls>(invoke, (created) =>
    tenantHandle(invoke, { ...created, baseUrl: base }),
  )
  return {
    ...controls,
    url: base,
    get ready() {
      // The health row's output names the mock: another server's 200 on the port is refused as
      // an answer that is not the endpoint's, however ready that server is.
      return controls.health().then(() => undefined)
    },
    get credentials() {
      return controls.organisations
        .list()
        .then(({ organisations }) =>
          organisations.map(({ orgId, name, apiKeys }) => ({ orgId, name, apiKeys })),
        )
    },
    calls: async (operation, scope) => callsIn(await controls.requests(scope), operation),
  }
}

/** The path and query of a call of `row` with `input`: its parameters in the path, its query after. */
function targetOf(row: AnyControlRow, input: unknown): string {
  const fields = { ...(input as Record<string, unknown>) }
  const path = row.path.replace(/:(\w+)/g, (_, name: string) => {
    const value = fields[name]
    delete fields[name]
    return encodeURIComponent(String(value ?? ''))
  })
  if (row.carry !== 'query') return path
  const query = Object.entries(fields).flatMap(([name, value]): [string, string][] =>
    value === undefined ? [] : [[name, String(value)]],
  )
  return query.length > 0 ? `${path}?${new URLSearchParams(query)}` : path
}

/** The JSON body of a call of `row` with `input`: the input less its path parameters, or its one field. */
function bodyOf(row: AnyControlRow, input: unknown): string | undefined {
  const { carry } = row
  if (carry === 'none' || carry === 'query') return undefined
  const fields = { ...(input as Record<string, unknown>) }
  if (typeof carry === 'object') return JSON.stringify(fields[carry.bodyOf])
  for (const name of paramsOf(row.path)) delete fields[name]
  return JSON.stringify(fields)
}

/** An answer of the server, its body read whole, with what was asked. */
interface Answer {
  target: string
  status: number
  statusText: string
  text: string
}

/** Why a request got no answer, in a few words: the system's code (`ECONNREFUSED`) if any. */
function reasonOf(error: unknown): string {
  const cause = error instanceof Error ? error.cause : undefined
  const code = cause instanceof Error && 'code' in cause ? cause.code : undefined
  if (typeof code === 'string') return code
  return error instanceof Error ? error.message : String(error)
}

/**
 * The {@link ApiError} of an error answer of the mock (`{code, message}`, `code` its status): the
 * row of the error table with its status and message, or the first row with its status, keeping
 * the answer's message (a 400 saying what is wrong). Any other error answer (a proxy's page, a
 * status the mock never gives) is a {@link MockApiClientError} `invalid-answer`.
 */
function errorOf(answer: Answer): Error {
  const { status, text } = answer
  let message: string | undefined
  try {
    const body: unknown = JSON.parse(text)
    if (typeof body === 'object' && body !== null && 'code' in body && body.code === status) {
      message = 'message' in body ? String(body.message) : undefined
    }
  } catch {
    message = undefined
  }
  const rows = Object.entries(apiErrors) as Array<[ApiErrorCode, (typeof apiErrors)[ApiErrorCode]]>
  const exact = rows.find(([, row]) => row.status === status && row.message === message)
  const [code] = exact ?? rows.find(([, row]) => row.status === status) ?? []
  if (message === undefined || code === undefined) {
    return new MockApiClientError(
      'invalid-answer',
      `${answer.target} answered ${status} ${answer.statusText}, not an error of the mock: ${JSON.stringify(text.slice(0, 100))}`,
    )
  }
  return new ApiError(code, { message })
}

export { type ShapeCase, shapeCases } from '../api/shape-cases.ts'
export { ApiError, type ApiErrorCode } from '../base/errors.ts'
export type { Tenant } from '../control/control-surfaces.ts'
export type { TenantFault } from '../control/control-table.ts'
export { type FailureCase, type FailureCaseName, failureCases } from '../core/failure-cases.ts'
export { MockApiClientError, type MockApiClientErrorCode } from './client-error.ts'
