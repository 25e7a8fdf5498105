import { Agent, type OutgoingHttpHeaders, request } from 'node:http'

export interface RawAnswer {
  status: number
  headers: Record<string, string | string[] | undefined>
  header(name: string): string | null
  text: string
}

/**
 * Sends one request with `node:http`, the target exactly as given (no URL parsing, so dot
 * segments, malformed percent-encoding and fragments reach the server as they are).
 */
export function sendRaw(
  url: string,
  options: {
    method: string
    target: string
    headers?: OutgoingHttpHeaders
    body?: Uint8Array | null
    agent?: Agent
  },
): Promise<RawAnswer> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: hostname,
        port,
        method: options.method,
        path: options.target,
        headers: {
          ...options.headers,
          ...(options.body && { 'content-length': options.body.byteLength }),
        },
        agent: options.agent ?? false,
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('error', reject)
        res.on('end', () => {
          const header = (name: string) => {
            const value = res.headers[name.toLowerCase()]
            return Array.isArray(value) ? value.join(', ') : (value ?? null)
          }
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            header,
            text: Buffer.concat(chunks).toString('utf8'),
          })
        })
      },
    )
    req.on('error', reject)
    req.end(options.body ?? undefined)
  })
}

/** A keep-alive agent, so that a thousand requests do not open a thousand connections. */
export function keepAliveAgent(maxSockets = 4): Agent {
  return new Agent({ keepAlive: true, maxSockets })
}
