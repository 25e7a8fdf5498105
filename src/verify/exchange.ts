import { readBytes } from '../base/read-bytes.ts'

/** An answer of the target, its body read (at most {@link maxAnswerBytes}). */
export interface Answer {
  status: number
  headers: Headers
  text: string
  /** The body parsed as JSON; `undefined` when it is not JSON. */
  json: unknown
}

/** What one request gave: an answer, or why there is none. */
export type Exchange =
  | { answered: true; answer: Answer }
  | { answered: false; failure: 'timeout' | 'network' | 'interrupted'; message: string }

/** The most of an answer's body that is read: the API's answers are a few hundred bytes. */
const maxAnswerBytes = 256 * 1024

export interface SendOptions {
  fetch: typeof fetch
  timeoutMs: number
  signal?: AbortSignal | undefined
}

/**
 * Sends one request and reads its answer, within `timeoutMs` (connection and body alike). Never
 * throws: a timeout, a network error or an interruption is an exchange without an answer.
 *
 * @example
 * const exchange = await sendRequest(new Request(url), { fetch, timeoutMs: 10_000 })
 */
export async function sendRequest(request: Request, options: SendOptions): Promise<Exchange> {
  const timeout = AbortSignal.timeout(options.timeoutMs)
  const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout
  try {
    const response = await options.fetch(request, { signal })
    const text = await readText(response)
    return {
      answered: true,
      answer: { status: response.status, headers: response.headers, text, json: parseJson(text) },
    }
  } catch (error) {
    if (options.signal?.aborted) {
      return { answered: false, failure: 'interrupted', message: 'interrupted' }
    }
    if (timeout.aborted) {
      return {
        answered: false,
        failure: 'timeout',
        message: `no answer within ${options.timeoutMs} ms`,
      }
    }
    return { answered: false, failure: 'network', message: `no answer: ${describeFailure(error)}` }
  }
}

async function readText(response: Response): Promise<string> {
  if (!response.body) return ''
  const { bytes } = await readBytes(response.body, maxAnswerBytes)
  return new TextDecoder().decode(bytes.subarray(0, maxAnswerBytes))
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** A network failure in a few words, with its cause: the system's code (`ECONNREFUSED`) if any. */
function describeFailure(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  const cause = error instanceof Error ? error.cause : undefined
  if (!(cause instanceof Error)) return message
  const code = 'code' in cause && typeof cause.code === 'string' ? cause.code : undefined
  return `${message} (${code ?? cause.message})`
}
