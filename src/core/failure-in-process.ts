import type { WireResponse } from '../base/errors.ts'
import { slowSchedule, truncatedLength, type WireFailure } from '../base/wire-failure.ts'

/**
 * A failure as `fetch` meets it in the same process (the MSW handlers, `api.fetch`): a network
 * error is `Response.error()` (what a handler answers for one; `api.fetch` throws `fetch`'s
 * `TypeError` instead), a hang settles only when `signal` aborts (rejecting with its reason) or at
 * its bound (a network error), and a body cut short or sent slowly is a stream. Nothing is left
 * behind: no timer outlives the hang or the stream, and a stream no one reads starts none.
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
      return hang(failure.ms, signal)
    case 'truncated':
      return withStream(wire, (bytes) => truncatedStream(bytes))
    case 'slow':
      return withStream(wire, (bytes) => slowStream(bytes, failure.ms, signal))
  }
}

function hang(ms: number, signal: AbortSignal | null | undefined): Promise<Response> {
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
      resolve(Response.error())
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
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
