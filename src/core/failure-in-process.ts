import type { WireResponse } from '../base/errors.ts'
import {
  pageHeaders,
  slowSchedule,
  truncatedLength,
  type WireFailure,
} from '../base/wire-failure.ts'

/**
 * A failure as `fetch` meets it in the same process (the MSW handlers, `api.fetch`): a network
 * error is `Response.error()` (what a handler answers for one; `api.fetch` throws `fetch`'s
 * `TypeError` instead), a hang settles only when `signal` aborts (rejecting with its reason) or at
 * its bound (a network error), and a body cut short or sent slowly is a stream. Behind a gateway,
 * its page is a `Response` with the page's status, reason phrase, headers and body, at its moment;
 * an answer nginx buffered, the whole answer at its moment, or its head with a body that fails at
 * once. Nothing is left behind: no timer outlives the hang or the stream, and a stream no one reads
 * starts none.
 *
 * @example const response = await failureInProcess(wire, { kind: 'hang', ms: 30_000 }, request.signal)
 */
export function failureInProcess(
  wire: WireResponse,
  failure: WireFailure,
  signal: AbortSignal | null | undefined,
): Response | Promise<Response> {
  switch (failure.kind) {
    case 'reset':
    case 'empty':
      return Response.error()
    case 'hang':
      return after(failure.ms, signal, () => Response.error())
    case 'truncated':
      return withStream(wire, (bytes) => truncatedStream(bytes))
    case 'slow':
      return withStream(wire, (bytes) => slowStream(bytes, failure.ms, signal))
    case 'page': {
      const { page } = failure
      return after(failure.ms, signal, () => {
        const headers = pageHeaders(page, new Date())
        return new Response(page.body, { status: page.status, statusText: page.reason, headers })
      })
    }
    case 'buffered':
      return after(failure.ms, signal, () =>
        failure.cut ? withStream(wire, () => cutStream()) : toWholeResponse(wire),
      )
    default:
      return failure satisfies never
  }
}

/**
 * What `answer` gives at `ms` (at once for 0); rejects with the reason of `signal` when it aborts
 * first, as `fetch` waiting for headers does. No timer outlives it: a hang is a network error at
 * its bound.
 */
function after(
  ms: number,
  signal: AbortSignal | null | undefined,
  answer: () => Response,
): Response | Promise<Response> {
  if (ms <= 0) return answer()
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason)
      return
    }
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal?.reason)
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve(answer())
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

/** `wire` whole, its `content-length` its body's, as a gateway that buffered it sends it. */
function toWholeResponse(wire: WireResponse): Response {
  return withStream(wire, (bytes) => new Blob([bytes as Uint8Array<ArrayBuffer>]).stream())
}

/** No byte of the body, then the error a connection closed before it gives `fetch`. */
function cutStream(): ReadableStream<Uint8Array> {
  return new ReadableStream(
    {
      pull(controller) {
        controller.error(new TypeError('terminated'))
      },
    },
    { highWaterMark: 0 },
  )
}

/** `wire`'s status and headers, its `content-length` the whole body's, with the stream `of` its bytes. */
function withStream(
  wire: WireResponse,
  of: (bytes: Uint8Array) => ReadableStream<Uint8Array>,
): Response {
  const bytes = new TextEncoder().encode(wire.body)
  return new Response(of(bytes), {
    status: wire.status,
    headers: { ...wire.headers, 'content-length': String(bytes.byteLength) },
  })
}

/** Half of `bytes`, then the error a connection closed mid-body gives `fetch`. */
function truncatedStream(bytes: Uint8Array): ReadableStream<Uint8Array> {
  let sent = false
  return new ReadableStream(
    {
      pull(controller) {
        if (sent) controller.error(new TypeError('terminated'))
        else controller.enqueue(bytes.subarray(0, truncatedLength(bytes.byteLength)))
        sent = true
      },
    },
    { highWaterMark: 0 },
  )
}

/**
 * `bytes` in pieces spread over `ms`, each given when read for, the last at `ms`; erroring with
 * the reason of `signal` when it aborts meanwhile, as a body `fetch` is reading does. The stream
 * listens to `signal` only while a read waits for its piece: a body no one reads, or reads no
 * further, leaves no listener on the caller's signal and no timer.
 */
function slowStream(
  bytes: Uint8Array,
  ms: number,
  signal: AbortSignal | null | undefined,
): ReadableStream<Uint8Array> {
  const schedule = slowSchedule(bytes.byteLength, ms)
  let next = 0
  let stop = () => {}
  return new ReadableStream(
    {
      pull(controller) {
        const before = schedule[next - 1]
        const piece = schedule[next++]
        if (!piece) return
        if (signal?.aborted) {
          controller.error(signal.reason)
          return
        }
        return new Promise<void>((resolve) => {
          const onAbort = () => {
            stop()
            controller.error(signal?.reason)
            resolve()
          }
          const timer = setTimeout(
            () => {
              stop()
              controller.enqueue(bytes.subarray(before?.end ?? 0, piece.end))
              if (next === schedule.length) controller.close()
              resolve()
            },
            piece.atMs - (before?.atMs ?? 0),
          )
          signal?.addEventListener('abort', onAbort, { once: true })
          stop = () => {
            clearTimeout(timer)
            signal?.removeEventListener('abort', onAbort)
          }
        })
      },
      cancel: () => stop(),
    },
    { highWaterMark: 0 },
  )
}
