import type { IncomingMessage, ServerResponse } from 'node:http'
import { handleControl, isControlRequest } from '../control.ts'
import { toErrorResponse, type WireResponse } from '../errors.ts'
import type { MockCore } from '../mock-core.ts'
import { answerOpenApi, openApiPath } from '../openapi.ts'
import { maxBodyBytes, pathnameOf, type WireRequest } from '../wire.ts'

/**
 * The `node:http` adapter: turns a Node request into a {@link WireRequest}, asks the mock's
 * `dispatch` (or the control endpoints) and writes the answer back. It builds no Fetch `Request`
 * and runs no MSW matching, yet answers with the very code the MSW handlers call.
 */
export function createRequestListener(core: MockCore) {
  return (req: IncomingMessage, res: ServerResponse) => {
    readWireRequest(req)
      .then((request) =>
        pathnameOf(request.target) === openApiPath
          ? answerOpenApi(request.method)
          : isControlRequest(request)
            ? handleControl(core, request)
            : core.dispatch(request),
      )
      .catch(toErrorResponse)
      .then((response) => writeResponse(res, response))
  }
}

/** Reads the body up to the limit; past it, stops reading and flags the body as too large. */
function readWireRequest(req: IncomingMessage): Promise<WireRequest> {
  const headers = {
    get(name: string): string | null {
      const value = req.headers[name.toLowerCase()]
      return Array.isArray(value) ? value.join(', ') : (value ?? null)
    },
  }
  const base = { method: req.method ?? 'GET', target: req.url ?? '/', headers }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength
      if (size <= maxBodyBytes) {
        chunks.push(chunk)
        return
      }
      req.off('data', onData)
      req.off('end', onEnd)
      req.pause()
      resolve({ ...base, body: null, bodyTooLarge: true })
    }
    const onEnd = () => resolve({ ...base, body: size > 0 ? Buffer.concat(chunks) : null })
    req.on('data', onData)
    req.on('end', onEnd)
    req.on('error', reject)
  })
}

function writeResponse(res: ServerResponse, response: WireResponse) {
  if (res.headersSent || res.destroyed) return
  const tooLarge = !res.req.complete
  const body = response.status === 204 ? '' : response.body
  res.writeHead(response.status, {
    ...response.headers,
    ...(response.status !== 204 && { 'content-length': Buffer.byteLength(body) }),
    ...(tooLarge && { connection: 'close' }),
  })
  res.end(body)
  if (tooLarge) res.on('finish', () => res.req.socket.destroySoon())
}
