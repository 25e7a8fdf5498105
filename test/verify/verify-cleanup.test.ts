import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { verifyDeployment } from '../../src/verify/node/index.ts'
import { runCli } from '../support/cli-process.ts'

/**
 * `verify` against fake targets that get the other organisation wrong: it deletes its user in
 * every organisation it may have written to, whatever they answer, and names each user it could
 * not delete. Text from the target reaches the terminal with its control characters escaped.
 */

const apiKey = 'fake-target-key'
const hostile = '\u001b]0;pwned-title\u0007\u001b[2J ALL CHECKS PASSED'

interface FakeTarget {
  url: string
  /** The users it holds, as `orgId/id`. */
  users: Set<string>
  /** Every request, as `METHOD /path`. */
  requests: string[]
  close(): Promise<void>
}

interface Behaviour {
  /** Milliseconds before it answers (and applies) a request; none by default. */
  delayMs?: (request: string, orgId: string) => number
  /** What it waits for before it answers (and applies) a request; nothing by default. */
  holdUntil?: (request: string, orgId: string) => Promise<void> | undefined
  /** Whether a delete in `orgId` is refused 403 rather than applied. */
  refusesDelete?: (orgId: string) => boolean
  /** Whether a late answer is applied (a slow service) or not (a request stuck, then dropped). */
  appliesLateDeletes?: boolean
  /** A message for every error answer. */
  message?: string
}

const targets: FakeTarget[] = []
afterEach(async () => {
  await Promise.all(targets.splice(0).map((target) => target.close()))
})

/**
 * A fake deployment of the API: it accepts identify in any organisation (the other
 * organisation's included, which the real API refuses) and applies it after its delay.
 */
async function startFakeTarget(behaviour: Behaviour = {}): Promise<FakeTarget> {
  const users = new Set<string>()
  const requests: string[] = []
  const message = behaviour.message ?? 'Not found'
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const request = `${req.method} ${req.url}`
    requests.push(request)
    const answer = (status: number, body: unknown) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))
    // Written by hand, so that the message reaches the client as it is, control characters and all.
    const fail = (status: number) =>
      res
        .writeHead(status, { 'content-type': 'application/json' })
        .end(`{"code":${status},"message":"${message}"}`)
    if (req.headers.authorization?.toLowerCase() !== `bearer ${apiKey}`) return fail(401)
    const deleteMatch = /^\/api\/v1\/users\/([^/]+)\/([^/]+)$/.exec(req.url ?? '')
    const body =
      req.method === 'POST' ? JSON.parse(Buffer.concat(chunks).toString() || '{}') : undefined
    const orgId = deleteMatch ? decodeURIComponent(deleteMatch[1] as string) : body?.orgId
    await behaviour.holdUntil?.(request, orgId)
    const delay = behaviour.delayMs?.(request, orgId) ?? 0
    if (delay > 0) {
      await new Promise((resolve) => setTimeout(resolve, delay))
      if (req.method === 'DELETE' && behaviour.appliesLateDeletes === false) return fail(500)
    }
    if (req.method === 'POST' && req.url === '/api/v1/users/identify') {
      if (typeof body.id !== 'string' || typeof orgId !== 'string') return fail(400)
      users.add(`${orgId}/${body.id}`)
      return answer(200, { userId: 'u', token: crypto.randomUUID(), data: {} })
    }
    if (req.method === 'DELETE' && deleteMatch) {
      if (behaviour.refusesDelete?.(orgId)) return fail(403)
      const key = `${orgId}/${decodeURIComponent(deleteMatch[2] as string)}`
      if (!users.delete(key)) return fail(404)
      return answer(200, { id: deleteMatch[2], deleted: true })
    }
    return fail(404)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const target = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    users,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
  targets.push(target)
  return target
}

const isOtherOrgIdentify = (request: string, orgId: string) =>
  request.startsWith('POST') && orgId === 'globex'

/** A run against `target` for `acme`, with `globex` as the other organisation. */
const verifyAcme = (target: FakeTarget, timeoutMs?: number) =>
  verifyDeployment({
    baseUrl: target.url,
    apiKey,
    orgId: 'acme',
    otherOrgId: 'globex',
    ...(timeoutMs !== undefined && { timeoutMs }),
  })

const deletesIn = (target: FakeTarget, orgId: string) =>
  target.requests.filter((r) => r.startsWith(`DELETE /api/v1/users/${orgId}/verify-`))

describe('verify against a target that accepts the other organisation’s identify after the timeout and refuses the delete there', () => {
  let target: FakeTarget
  let cli: ReturnType<typeof runCli>
  beforeAll(async () => {
    target = await startFakeTarget({
      delayMs: (request, orgId) => (isOtherOrgIdentify(request, orgId) ? 2_000 : 0),
      refusesDelete: (orgId) => orgId === 'globex',
      message: hostile,
    })
    cli = runCli(
      ['verify', '--base-url', target.url, '--org', 'acme', '--other-org', 'globex'].concat([
        '--timeout',
        '1000',
      ]),
      ['env', `IDENTIFY_API_MOCK_VERIFY_API_KEY=${apiKey}`],
    )
    await cli.exit
    // The late identify is applied once its delay is over.
    while (target.users.size === 0) await new Promise((resolve) => setTimeout(resolve, 50))
  }, 60_000)

  it('names the user it could not delete there, with that organisation', () => {
    const [left] = [...target.users]
    // The user stays in globex, and only there.
    expect([...target.users]).toEqual([expect.stringMatching(/^globex\/verify-[0-9a-f]{32}$/)])
    const id = left?.split('/')[1]
    // The run's own delete there, and the clean-up's.
    expect(deletesIn(target, 'globex')).toHaveLength(2)
    const lines = cli.stdout().split('\n')
    expect(lines.filter((line) => line.includes('throwaway user'))).toEqual([
      `The throwaway user ${id} in globex could NOT be deleted: delete it by hand.`,
    ])
    expect(cli.stderr()).toBe(
      `identify-api-mock: the throwaway user ${id} in globex could NOT be deleted: delete it by hand\n`,
    )
  })

  it('shows the target’s text with its control characters escaped', () => {
    // No control character but the line ends.
    expect((cli.stdout() + cli.stderr()).replaceAll('\n', '')).not.toMatch(/\p{Cc}/u)
    const shown = cli
      .stdout()
      .split('\n')
      .filter((line) => line.includes('pwned-title'))
    expect(shown.length).toBeGreaterThan(5)
    for (const line of shown) {
      expect(line).toContain(String.raw`\x1b]0;pwned-title\x07\x1b[2J ALL CHECKS PASSED`)
    }
  })
})

describe('verify cleans up in every organisation it wrote to', { timeout: 30_000 }, () => {
  it('names the other organisation, not the key’s, when the identify there answered in time', async () => {
    const target = await startFakeTarget({ refusesDelete: (orgId) => orgId === 'globex' })
    const report = await verifyAcme(target)
    expect(report.throwawayUser).toEqual({
      orgId: 'acme',
      id: report.throwawayUser.id,
      deleted: false,
      leftBehind: [{ orgId: 'globex', id: report.throwawayUser.id }],
      unanswered: [],
    })
    expect([...target.users]).toEqual([`globex/${report.throwawayUser.id}`])
  })

  it('sends a delete that got no answer once more, and then the user is gone everywhere', async () => {
    let lateDeletes = 0
    const target = await startFakeTarget({
      // The run's delete in globex and the clean-up's first one time out, and are never applied.
      delayMs: (request, orgId) =>
        request.startsWith('DELETE') && orgId === 'globex' && ++lateDeletes <= 2 ? 600 : 0,
      appliesLateDeletes: false,
    })
    const report = await verifyAcme(target, 300)
    expect(deletesIn(target, 'globex')).toHaveLength(3)
    expect(report.throwawayUser).toMatchObject({ deleted: true, leftBehind: [] })
    await new Promise((resolve) => setTimeout(resolve, 400))
    expect([...target.users]).toEqual([])
  })
})

describe('verify and a write that lands after its clean-up', { timeout: 30_000 }, () => {
  it('deletes the user a late identify wrote after the clean-up, and reports that write', async () => {
    // The identify in globex times out, and is applied once the run has sent its last delete:
    // after the run's own delete there answered 404, before the clean-up's check.
    let releaseLateWrite = () => {}
    const lateWrite = new Promise<void>((resolve) => {
      releaseLateWrite = resolve
    })
    const target = await startFakeTarget({
      holdUntil: (request, orgId) => (isOtherOrgIdentify(request, orgId) ? lateWrite : undefined),
    })
    const lastStep = setInterval(() => {
      if (deletesIn(target, 'acme').length >= 2) releaseLateWrite()
    }, 5)
    try {
      const report = await verifyAcme(target, 300)
      const { id } = report.throwawayUser
      expect(report.throwawayUser).toEqual({
        orgId: 'acme',
        id,
        deleted: true,
        leftBehind: [],
        unanswered: [{ orgId: 'globex', id, rewritten: true }],
      })
      // Gone everywhere: the late write's user was deleted by the last check.
      expect([...target.users]).toEqual([])
      expect(deletesIn(target, 'globex')).toHaveLength(2)
    } finally {
      clearInterval(lastStep)
    }
  })

  it('says so when the write that got no answer had not landed by the last check', async () => {
    const target = await startFakeTarget({
      delayMs: (request, orgId) => (isOtherOrgIdentify(request, orgId) ? 5_000 : 0),
    })
    const report = await verifyAcme(target, 200)
    expect(report.throwawayUser).toMatchObject({
      deleted: true,
      unanswered: [{ orgId: 'globex', rewritten: false }],
    })
  })
})
