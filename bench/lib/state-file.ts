import { rmSync } from 'node:fs'
import { request } from 'node:http'
import type { ServerOptions } from '../../src/server/server.ts'
import { type MockServer, send, startMockServer } from './processes.ts'

/** Starts a server in its own process and measures the time until it listens. */
export async function timedStart(
  options: ServerOptions,
): Promise<{ server: MockServer; ms: number }> {
  const started = performance.now()
  const server = await startMockServer(options)
  return { server, ms: performance.now() - started }
}

/** The size in bytes of `GET /__mock/state`, read as it streams (never held whole). */
export function stateBytes(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    request(`${url}/__mock/state`, (res) => {
      let bytes = 0
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length
      })
      res.on('end', () =>
        res.statusCode === 200
          ? resolve(bytes)
          : reject(new Error(`state answered ${res.statusCode}`)),
      )
      res.on('error', reject)
    })
      .on('error', reject)
      .end()
  })
}

/**
 * Grows the state of the server at `url` past `bytes` of JSON through identify calls within every
 * documented limit: 1,000 groups of 250 characters, new ones each call, and four 1,024-character
 * fields (the review's reproduction). Returns the number of calls.
 */
export async function growState(
  url: string,
  apiKey: string,
  orgId: string,
  bytes: number,
): Promise<number> {
  const field = 'x'.repeat(1024)
  // Each call adds its groups (about 520 characters each) and a user holding their ids.
  const perCall = 1000 * (520 + 253) + 5000
  const calls = Math.ceil(bytes / perCall)
  for (let i = 0; i < calls; i++) {
    const userGroups = Array.from(
      { length: 1000 },
      (_, g) => `${String(i).padStart(6, '0')}-${'g'.repeat(236)}-${String(g).padStart(4, '0')}`,
    )
    const answer = await send({
      url: `${url}/api/v1/users/identify`,
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        id: `big-${i}`,
        orgId,
        data: { firstName: field, lastName: field, country: field, region: field, userGroups },
      }),
    })
    if (answer.status !== 200)
      throw new Error(`identify ${i} answered ${answer.status}: ${answer.body}`)
  }
  return calls
}

export function removeStateFile(path: string): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true })
}
