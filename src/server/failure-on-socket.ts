import type { ServerResponse } from 'node:http'
import type { WireResponse } from '../base/errors.ts'
import { slowSchedule, truncatedLength, type WireFailure } from '../base/wire-failure.ts'
import { writeGatewayFailure } from './gateway-on-socket.ts'

/**
 * Gives a failure on the connection of `res` instead of writing `response` whole: a reset (an
 * RST, no byte), an empty answer (a FIN, no byte), a hang (no byte until the client closes or the
 * bound passes, then the socket destroyed), `response` cut after half its body (its
 * `content-length` the whole body's) or its body written in pieces over the span. No timer
 * outlives the socket.
 *
 * @example writeFailure(res, response, { kind: 'reset' })
 */
export function writeFailure(
  res: ServerResponse,
  response: WireResponse,
  failure: WireFailure,
): void {
  const { socket } = res
  // A client already gone (during the call's delay) starts nothing: no timer would be cleared.
  if (!socket || res.headersSent || socket.destroyed) return
  switch (failure.kind) {
    case 'reset':
      socket.resetAndDestroy()
      return
    case 'empty':
      socket.end(() => socket.destroy())
      return
    case 'hang': {
      const end = () => socket.destroy()
      const timer = setTimeout(end, failure.ms)
      socket.once('close', () => clearTimeout(timer))
      // The client gave up: its side is closed, and nothing more will come.
      socket.once('end', end)
      return
    }
    case 'truncated': {
      const body = writeHead(res, response)
      res.write(body.subarray(0, truncatedLength(body.byteLength)), () => socket.destroy())
      return
    }
    case 'page':
    case 'buffered':
      writeGatewayFailure(res, response, failure)
      return
    case 'slow': {
      const body = writeHead(res, response)
      let timer: NodeJS.Timeout | undefined
      socket.once('close', () => clearTimeout(timer))
      const pieces = slowSchedule(body.byteLength, failure.ms)
      const write = (i: number) => {
        const before = pieces[i - 1]
        const piece = pieces[i]
        if (!piece) return
        timer = setTimeout(
          () => {
            const chunk = body.subarray(before?.end ?? 0, piece.end)
            if (i === pieces.length - 1) res.end(chunk)
            else {
              res.write(chunk)
              write(i + 1)
            }
          },
          piece.atMs - (before?.atMs ?? 0),
        )
      }
      write(0)
      return
    }
    default:
      // A new kind that this switch forgot fails to compile, rather than hang the connection.
      failure satisfies never
  }
}

/** Sends `response`'s status line and headers at once, its `content-length` its whole body's. */
function writeHead(res: ServerResponse, response: WireResponse): Buffer {
  const body = Buffer.from(response.body)
  res.writeHead(response.status, {
    ...response.headers,
    'content-length': String(body.byteLength),
  })
  res.flushHeaders()
  return body
}
