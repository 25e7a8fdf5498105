import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { MockState } from '../../src/root/index.ts'
import { propertySeed } from './properties.ts'
import { dispatchWayIn, type StartWayIn, type WayIn } from './way-in.ts'

/**
 * Many calls at once through one way in: identify never creates a user twice, and identify,
 * delete and web-view sign-ins of one user, interleaved, leave it either fully present or fully
 * gone, with nothing left behind. Written once, run through the transport-free dispatch, the MSW
 * handlers and the HTTP server.
 */

/**
 * Every record that belongs to a user refers to a user that exists (in its organisation), and
 * no two users share an `(orgId, id)` or a `userId`.
 */
export function expectConsistent(state: MockState) {
  const users = new Map(state.users.map((u) => [u.userId, u]))
  expect(users.size).toBe(state.users.length)
  expect(new Set(state.users.map((u) => `${u.orgId}\u0000${u.id}`)).size).toBe(state.users.length)
  const orphans = [
    ...state.learningProgress.filter((r) => !users.has(r.userId)),
    ...state.certificates.filter((r) => !users.has(r.userId)),
    ...state.signInTokens.filter((r) => users.get(r.userId)?.orgId !== r.orgId),
    ...state.webViewSessions.filter((r) => users.get(r.userId)?.orgId !== r.orgId),
  ]
  expect(orphans).toEqual([])
}

type Op =
  | { kind: 'identify'; firstName: string }
  | { kind: 'delete' }
  | { kind: 'sign-in'; token: number }

export function describeConcurrency(name: string, start: StartWayIn, runs: number) {
  describe(`concurrency through ${name}`, () => {
    let way: WayIn
    let key: string
    beforeAll(async () => {
      way = await start()
      key = way.credentials[0]?.apiKeys[0] ?? ''
    })
    afterAll(() => way.close())

    const identify = (id: string, data: Record<string, unknown> = {}) =>
      way.send({
        method: 'POST',
        target: '/api/v1/users/identify',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ id, orgId: 'org-1', data }),
      })
    const remove = (id: string) =>
      way.send({
        method: 'DELETE',
        target: `/api/v1/users/org-1/${encodeURIComponent(id)}`,
        headers: { authorization: `Bearer ${key}` },
      })
    const signIn = (token: string) =>
      way.send({ method: 'GET', target: `/webview?orgId=org-1&token=${token}` })

    it('creates exactly one user for 100 identify calls at once with one new id', async () => {
      await way.reset()
      const answers = await Promise.all(
        Array.from({ length: 100 }, (_, i) => identify('stampede', { firstName: `n${i}` })),
      )
      expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200))
      const userIds = new Set(answers.map((a) => JSON.parse(a.text).data.userId))
      expect(userIds.size).toBe(1)
      const state = await way.state()
      const users = state.users.filter((u) => u.id === 'stampede')
      expect(users.map((u) => u.userId)).toEqual([...userIds])
      // Each call issued a token; the user keeps the newest 10 (maxTokensPerUser).
      expect(state.signInTokens.filter((t) => userIds.has(t.userId))).toHaveLength(10)
      expectConsistent(state)
    })

    it('leaves a user fully present or fully gone after interleaved identify, delete and sign-in', async () => {
      const seeded = await way.state()
      const learner = seeded.users.find(
        (u) => u.orgId === 'org-1' && seeded.certificates.some((c) => c.userId === u.userId),
      )
      if (!learner) throw new Error('org-1 has no seeded user with a certificate')
      const op = fc.oneof(
        fc.string({ maxLength: 3 }).map((firstName) => ({ kind: 'identify' as const, firstName })),
        fc.constant({ kind: 'delete' as const }),
        fc.nat(3).map((token) => ({ kind: 'sign-in' as const, token })),
      )
      // The storms must include each outcome, or the consistency checks would prove little.
      const seen = { signedIn: 0, deleted: 0 }
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(learner.id, 'newcomer'),
          fc.array(op, { minLength: 2, maxLength: 16 }),
          async (id, ops: Op[]) => {
            await way.reset()
            // Tokens to sign in with, issued before the storm (to the user as it was then).
            const tokens = await Promise.all(
              [0, 1, 2, 3].map(async () => JSON.parse((await identify(id)).text).token as string),
            )
            const before = await way.state()
            const initial = before.users.find((u) => u.orgId === 'org-1' && u.id === id)?.userId
            const answers = await Promise.all(
              ops.map((o) =>
                o.kind === 'identify'
                  ? identify(id, { firstName: o.firstName })
                  : o.kind === 'delete'
                    ? remove(id)
                    : signIn(tokens[o.token] ?? ''),
              ),
            )
            const after = await way.state()
            expectConsistent(after)

            const statuses = ops.map((o, i) => [o.kind, answers[i]?.status])
            seen.signedIn += statuses.filter(([k, s]) => k === 'sign-in' && s === 200).length
            seen.deleted += statuses.filter(([k, s]) => k === 'delete' && s === 200).length
            for (const [kind, status] of statuses) {
              expect([kind, [200, 404, 401].includes(status as number)]).toEqual([kind, true])
              if (kind === 'identify') expect(status).toBe(200)
              if (kind === 'delete') expect([200, 404]).toContain(status)
            }
            // Each life of the user began with a creation and ended with one successful delete.
            const lives = new Set([
              ...(initial ? [initial] : []),
              ...ops.flatMap((o, i) =>
                o.kind === 'identify' ? [JSON.parse(answers[i]?.text ?? '{}').data.userId] : [],
              ),
            ])
            const deleted = statuses.filter(([k, s]) => k === 'delete' && s === 200).length
            const present = after.users.filter((u) => u.orgId === 'org-1' && u.id === id)
            expect(lives.size).toBe(deleted + present.length)
            const text = JSON.stringify(after)
            for (const userId of lives) {
              if (userId !== present[0]?.userId) expect(text).not.toContain(userId)
            }
            if (start === dispatchWayIn) {
              // dispatch queues calls in the order they are made: the answers are those of the
              // calls made one after another.
              let exists = initial !== undefined
              const expected = ops.map((o) => {
                if (o.kind === 'sign-in') return undefined
                const status = o.kind === 'identify' || exists ? 200 : 404
                exists = o.kind === 'identify'
                return status
              })
              expect(
                statuses.map(([, s], i) => (expected[i] === undefined ? undefined : s)),
              ).toEqual(expected)
              expect(present.length).toBe(exists ? 1 : 0)
            }
          },
        ),
        { seed: propertySeed, numRuns: runs },
      )
      expect(seen.signedIn).toBeGreaterThan(0)
      expect(seen.deleted).toBeGreaterThan(0)
    }, 60_000)
  })
}
