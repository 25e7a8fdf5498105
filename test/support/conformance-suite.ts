import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { MockState } from '../../src/root/index.ts'
import { expectDeleted, expectError, expectIdentified } from './expect-body.ts'
import type { StartWayIn, WayIn, WayInOptions } from './way-in.ts'

const dateTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/
const identifyPath = '/api/v1/users/identify'

/**
 * The API's behaviour, as its description and docs/guides/behaviour.md state
 * it, written once and run against every way in (the MSW handlers, `api.fetch`,
 * the standalone server and its container), so they cannot drift apart. `cannot` tells why a way
 * in cannot start with some options (a container has only the CLI's flags); those blocks are
 * skipped with that reason in their name.
 */
export function describeConformance(
  name: string,
  start: StartWayIn,
  cannot: (options: WayInOptions) => string | undefined = () => undefined,
) {
  describe(`${name}: conformance`, () => {
    const t = useWayIn(start)

    const key = () => t().credentials[0]?.apiKeys[0] ?? ''
    const otherOrgKey = () => t().credentials[1]?.apiKeys[0] ?? ''
    const auth = (k = key()) => ({ authorization: `Bearer ${k}` })
    const json = { 'content-type': 'application/json' }

    const identify = (body: unknown, headers: Record<string, string> = { ...auth(), ...json }) =>
      t().fetch(t().url(identifyPath), { method: 'POST', headers, body: JSON.stringify(body) })
    const identifyRaw = (body: string | undefined, headers: Record<string, string>) =>
      t().fetch(t().url(identifyPath), { method: 'POST', headers: { ...auth(), ...headers }, body })
    const remove = (orgId: string, id: string, headers: Record<string, string> = auth()) =>
      t().fetch(t().url(`/api/v1/users/${orgId}/${encodeURIComponent(id)}`), {
        method: 'DELETE',
        headers,
      })
    const usersOf = (state: MockState, id: string) => state.users.filter((u) => u.id === id)

    /** Runs `request` and proves it changed nothing in the stored state. */
    async function expectUnchanged(request: () => Promise<Response>) {
      const before = await t().state()
      const response = await request()
      expect(await t().state()).toEqual(before)
      return response
    }

    describe('identify', () => {
      it('creates a registered user on the first call and echoes the id', async () => {
        const body = await expectIdentified(
          await identify({
            id: 'new-1',
            orgId: 'org-1',
            data: { firstName: 'Ada', sex: 'female' },
          }),
        )
        expect(body.id).toBe('new-1')
        expect(body.data).toMatchObject({
          registrationStatus: 'registered',
          firstName: 'Ada',
          sex: 'female',
          lastName: null,
          country: null,
          userGroups: [],
          learningPathId: null,
        })
        expect(body.data.registeredAt).toMatch(dateTime)
        expect(body.data.lastActive).toMatch(dateTime)
        const stored = usersOf(await t().state(), 'new-1')
        expect(stored).toHaveLength(1)
        expect(stored[0]?.userId).toBe(body.data.userId)
      })

      it('updates an existing user: stable userId, sent fields applied, omitted fields kept', async () => {
        const first = await expectIdentified(
          await identify({
            id: 'new-2',
            orgId: 'org-1',
            data: { firstName: 'Ada', lastName: 'Lovelace', country: 'UK', ageBracket: '35-44' },
          }),
        )
        const second = await expectIdentified(
          await identify({
            id: 'new-2',
            orgId: 'org-1',
            data: { firstName: 'Augusta', region: 'London' },
          }),
        )
        expect(second.data.userId).toBe(first.data.userId)
        expect(second.data).toMatchObject({
          firstName: 'Augusta',
          lastName: 'Lovelace',
          country: 'UK',
          region: 'London',
          ageBracket: '35-44',
          registeredAt: first.data.registeredAt,
        })
        const third = await expectIdentified(await identify({ id: 'new-2', orgId: 'org-1' }))
        expect(third.data).toEqual({ ...second.data, lastActive: third.data.lastActive })
        expect(usersOf(await t().state(), 'new-2')).toHaveLength(1)
      })

      it('issues a new URL-safe token of at least 128 bits on every call, stored only as a hash', async () => {
        const a = await expectIdentified(await identify({ id: 'tok', orgId: 'org-1' }))
        const b = await expectIdentified(await identify({ id: 'tok', orgId: 'org-1' }))
        for (const { token } of [a, b]) {
          expect(token).toMatch(/^[A-Za-z0-9_-]{32,}$/)
          expect(JSON.stringify(await t().state())).not.toContain(token)
        }
        expect(a.token).not.toBe(b.token)
        const tokens = (await t().state()).signInTokens.filter((x) => x.userId === a.data.userId)
        expect(tokens).toHaveLength(2)
      })

      it('replaces userGroups when sent, stores duplicates once in first-seen order, [] clears', async () => {
        const created = await expectIdentified(
          await identify({
            id: 'grp',
            orgId: 'org-1',
            data: { userGroups: ['grp-2', 'grp-1', 'grp-2'] },
          }),
        )
        expect(created.data.userGroups).toEqual(['grp-2', 'grp-1'])
        const kept = await expectIdentified(await identify({ id: 'grp', orgId: 'org-1', data: {} }))
        expect(kept.data.userGroups).toEqual(['grp-2', 'grp-1'])
        const replaced = await expectIdentified(
          await identify({ id: 'grp', orgId: 'org-1', data: { userGroups: ['grp-3'] } }),
        )
        expect(replaced.data.userGroups).toEqual(['grp-3'])
        const cleared = await expectIdentified(
          await identify({ id: 'grp', orgId: 'org-1', data: { userGroups: [] } }),
        )
        expect(cleared.data.userGroups).toEqual([])
      })

      it('creates a user group the organisation does not have', async () => {
        await expectIdentified(
          await identify({ id: 'g-new', orgId: 'org-1', data: { userGroups: ['brand-new'] } }),
        )
        const groups = (await t().state()).userGroups
        expect(groups).toContainEqual({ orgId: 'org-1', groupId: 'brand-new', name: 'brand-new' })
      })

      it("never changes an existing user's registrationStatus, and returns its learning path", async () => {
        const state = await t().state()
        const archived = state.users.find(
          (u) => u.orgId === 'org-1' && u.registrationStatus === 'archived',
        )
        const learner = state.users.find(
          (u) => u.orgId === 'org-1' && state.learningProgress.some((p) => p.userId === u.userId),
        )
        if (!archived || !learner)
          throw new Error('the seeded data lacks an archived user or a learner')
        const a = await expectIdentified(await identify({ id: archived.id, orgId: 'org-1' }))
        expect(a.data.registrationStatus).toBe('archived')
        expect(a.data.userId).toBe(archived.userId)

        const progress = state.learningProgress.find((p) => p.userId === learner.userId)
        const path = state.learningPaths.find(
          (p) => p.orgId === 'org-1' && p.learningPathId === progress?.learningPathId,
        )
        const l = await expectIdentified(await identify({ id: learner.id, orgId: 'org-1' }))
        expect(l.data).toMatchObject({
          learningPathId: progress?.learningPathId,
          learningPathName: path?.name,
          learningPathStartDate: progress?.startDate,
          learningPathDueDate: progress?.dueDate,
          learningPathCompletedAt: progress?.completedAt,
        })
        expect(l.data.learningPathStartDate).toMatch(/^\d{4}-\d{2}-\d{2}$/)
      })

      it('accepts any id of 1 to 1,024 characters, whatever its characters', async () => {
        for (const id of ['a/b@c', 'ünïcødé ✓', ' ', 'x'.repeat(1024), '__proto__']) {
          const body = await expectIdentified(await identify({ id, orgId: 'org-1' }))
          expect(body.id).toBe(id)
        }
      })

      it('accepts Content-Type parameters such as charset', async () => {
        const res = await identifyRaw(JSON.stringify({ id: 'cs', orgId: 'org-1' }), {
          'content-type': 'application/json; charset=utf-8',
        })
        await expectIdentified(res)
      })

      it('creates exactly one user for concurrent calls with one new id', async () => {
        const bodies = await Promise.all(
          Array.from({ length: 20 }, async () =>
            expectIdentified(await identify({ id: 'race', orgId: 'org-1' })),
          ),
        )
        expect(new Set(bodies.map((b) => b.data.userId)).size).toBe(1)
        expect(usersOf(await t().state(), 'race')).toHaveLength(1)
      })
    })

    describe('identify: 400 Invalid request parameters, changing nothing', () => {
      const invalidBodies: Array<[string, string | undefined, Record<string, string>?]> = [
        ['a body that is not JSON', '{"id": "x",'],
        ['an empty body', ''],
        ['no body', undefined],
        ['a JSON array', '[]'],
        ['a JSON string', '"x"'],
        ['JSON null', 'null'],
        ['no Content-Type', JSON.stringify({ id: 'x', orgId: 'org-1' }), { 'content-type': '' }],
        [
          'text/plain',
          JSON.stringify({ id: 'x', orgId: 'org-1' }),
          { 'content-type': 'text/plain' },
        ],
      ]
      for (const [what, body, headers] of invalidBodies) {
        it(`answers ${what}`, async () => {
          const res = await expectUnchanged(() => identifyRaw(body, headers ?? json))
          await expectError(res, 400, 'Invalid request parameters')
        })
      }

      const invalidObjects: Array<[string, unknown]> = [
        ['a missing id', { orgId: 'org-1' }],
        ['a missing orgId', { id: 'x' }],
        ['an empty id', { id: '', orgId: 'org-1' }],
        ['an empty orgId', { id: 'x', orgId: '' }],
        ['a numeric id', { id: 7, orgId: 'org-1' }],
        ['an unknown top-level field', { id: 'x', orgId: 'org-1', extra: true }],
        ['an unknown data field', { id: 'x', orgId: 'org-1', data: { nickname: 'x' } }],
        ['data as null', { id: 'x', orgId: 'org-1', data: null }],
        ['a data field as null', { id: 'x', orgId: 'org-1', data: { firstName: null } }],
        ['sex outside its enumeration', { id: 'x', orgId: 'org-1', data: { sex: 'other' } }],
        [
          'ageBracket outside its enumeration',
          { id: 'x', orgId: 'org-1', data: { ageBracket: '17' } },
        ],
        ['userGroups not an array', { id: 'x', orgId: 'org-1', data: { userGroups: 'grp-1' } }],
        ['a userGroups item not a string', { id: 'x', orgId: 'org-1', data: { userGroups: [1] } }],
      ]
      for (const [what, body] of invalidObjects) {
        it(`answers ${what}`, async () => {
          await expectError(
            await expectUnchanged(() => identify(body)),
            400,
            'Invalid request parameters',
          )
        })
      }

      it('answers a body over 1 MiB', async () => {
        const body = { id: 'big', orgId: 'org-1', data: { firstName: 'x'.repeat(1024 * 1024) } }
        await expectError(
          await expectUnchanged(() => identify(body)),
          400,
          'Invalid request parameters',
        )
      })

      it('checks the body before the organisation (400 before 403)', async () => {
        await expectError(
          await identify({ id: 'x', orgId: 'org-2', extra: 1 }),
          400,
          'Invalid request parameters',
        )
      })
    })

    describe('authentication', () => {
      const refusals: Array<[string, Record<string, string>]> = [
        ['a missing Authorization header', {}],
        ['the Basic scheme', { authorization: 'Basic dXNlcjpwYXNz' }],
        ['an empty key', { authorization: 'Bearer ' }],
        ['the scheme alone', { authorization: 'Bearer' }],
        ['an unknown key', { authorization: 'Bearer sk_test_unknown' }],
      ]
      for (const [what, headers] of refusals) {
        it(`answers ${what} with 401 and WWW-Authenticate: Bearer, on both operations`, async () => {
          const a = await expectUnchanged(() =>
            identify({ id: 'x', orgId: 'org-1' }, { ...headers, ...json }),
          )
          expect(a.headers.get('www-authenticate')).toBe('Bearer')
          await expectError(a, 401, 'Unauthorized')
          const d = await expectUnchanged(() => remove('org-1', 'x', headers))
          expect(d.headers.get('www-authenticate')).toBe('Bearer')
          await expectError(d, 401, 'Unauthorized')
        })
      }

      it('treats the scheme without regard to case', async () => {
        for (const scheme of ['bearer', 'BEARER', 'Bearer']) {
          const headers = { authorization: `${scheme} ${key()}`, ...json }
          await expectIdentified(await identify({ id: 'case', orgId: 'org-1' }, headers))
        }
      })

      it('checks credentials before the body (401 before 400)', async () => {
        await expectError(
          await identifyRaw('not json', { authorization: '', ...json }),
          401,
          'Unauthorized',
        )
      })
    })

    describe('tenancy: 403 Forbidden for another organisation, changing nothing', () => {
      it('refuses identify for an orgId the key does not belong to, existing or not', async () => {
        for (const orgId of ['org-2', 'no-such-org']) {
          await expectError(
            await expectUnchanged(() => identify({ id: 'x', orgId })),
            403,
            'Forbidden',
          )
        }
      })

      it('refuses delete in another organisation, even of a user that exists there', async () => {
        const victim = (await t().state()).users.find((u) => u.orgId === 'org-2')
        if (!victim) throw new Error('org-2 has no seeded user')
        await expectError(await expectUnchanged(() => remove('org-2', victim.id)), 403, 'Forbidden')
        await expectError(await expectUnchanged(() => remove('no-such-org', 'x')), 403, 'Forbidden')
        await expectDeleted(await remove('org-2', victim.id, auth(otherOrgKey())), victim.id)
      })
    })

    describe('delete', () => {
      it('deletes a user and everything that refers to its userId; its groups remain', async () => {
        const before = await t().state()
        const learner = before.users.find(
          (u) => u.orgId === 'org-1' && before.certificates.some((c) => c.userId === u.userId),
        )
        if (!learner) throw new Error('org-1 has no seeded user with a certificate')
        await expectIdentified(await identify({ id: learner.id, orgId: 'org-1' }))
        await expectDeleted(await remove('org-1', learner.id), learner.id)
        const after = await t().state()
        expect(JSON.stringify(after)).not.toContain(learner.userId)
        expect(after.userGroups).toEqual(before.userGroups)
        expect(after.users).toHaveLength(before.users.length - 1)
      })

      it('answers 404 User not found for a user that does not exist, and after a delete', async () => {
        await expectError(
          await expectUnchanged(() => remove('org-1', 'nobody')),
          404,
          'User not found',
        )
        await expectIdentified(await identify({ id: 'twice', orgId: 'org-1' }))
        await expectDeleted(await remove('org-1', 'twice'), 'twice')
        await expectError(await remove('org-1', 'twice'), 404, 'User not found')
      })

      it('gives a user identified again after a delete a new userId', async () => {
        const first = await expectIdentified(await identify({ id: 'again', orgId: 'org-1' }))
        await expectDeleted(await remove('org-1', 'again'), 'again')
        const second = await expectIdentified(await identify({ id: 'again', orgId: 'org-1' }))
        expect(second.data.userId).not.toBe(first.data.userId)
      })

      it('percent-decodes path parameters once', async () => {
        await expectIdentified(await identify({ id: 'a/b@c', orgId: 'org-1' }))
        await expectIdentified(await identify({ id: 'a%2F', orgId: 'org-1' }))
        const res = await t().fetch(t().url('/api/v1/users/org-1/a%2Fb%40c'), {
          method: 'DELETE',
          headers: auth(),
        })
        await expectDeleted(res, 'a/b@c')
        await expectDeleted(await remove('org-1', 'a%2F'), 'a%2F')
      })

      it('answers 404 Not found for an empty segment or invalid percent-encoding', async () => {
        for (const path of [
          '/api/v1/users/org-1/',
          '/api/v1/users//x',
          '/api/v1/users/org-1/%zz',
        ]) {
          const res = await expectUnchanged(() =>
            t().fetch(t().url(path), { method: 'DELETE', headers: auth() }),
          )
          await expectError(res, 404, 'Not found')
        }
      })

      it('checks the organisation before the user (403 before 404)', async () => {
        await expectError(await remove('org-2', 'nobody'), 403, 'Forbidden')
      })
    })

    describe('routing, before credentials', () => {
      it('answers a known path with another method 405 and Allow', async () => {
        const get = await t().fetch(t().url(identifyPath))
        expect(get.headers.get('allow')).toBe('POST')
        await expectError(get, 405, 'Method not allowed')
        const put = await t().fetch(t().url('/api/v1/users/org-1/x'), { method: 'PUT', body: '{}' })
        expect(put.headers.get('allow')).toBe('DELETE')
        await expectError(put, 405, 'Method not allowed')
      })

      it('answers an unknown path under /api/ 404 Not found', async () => {
        for (const path of [
          '/api/',
          '/api/v2/users/identify',
          '/api/v1/users/identify/extra/x',
          '/api/v1/users',
        ]) {
          await expectError(await t().fetch(t().url(path), { method: 'POST' }), 404, 'Not found')
        }
      })
    })

    describe('forced faults', () => {
      it('makes the next identify calls answer 500 with the exact message, then recovers', async () => {
        await t().failNext({ operation: 'identify', status: 500, count: 2 })
        for (let i = 0; i < 2; i++) {
          const res = await expectUnchanged(() => identify({ id: 'f', orgId: 'org-1' }))
          await expectError(res, 500, 'Internal server error')
        }
        await expectIdentified(await identify({ id: 'f', orgId: 'org-1' }))
      })

      it('answers every documented error of each operation on demand', async () => {
        const victim = (await t().state()).users.find((u) => u.orgId === 'org-1')
        if (!victim) throw new Error('org-1 has no seeded user')
        const rows = [
          ['identify', 400, 'Invalid request parameters'],
          ['identify', 403, 'Forbidden'],
          ['identify', 500, 'Internal server error'],
          ['delete', 403, 'Forbidden'],
          ['delete', 404, 'User not found'],
          ['delete', 500, 'Internal server error'],
        ] as const
        for (const [operation, status, message] of rows) {
          await t().failNext({ operation, status })
          const call = () =>
            operation === 'identify'
              ? identify({ id: victim.id, orgId: 'org-1' })
              : remove('org-1', victim.id)
          await expectError(await expectUnchanged(call), status, message)
        }
      })

      it('queues faults in order, consumed only by calls that pass the credentials check', async () => {
        await t().failNext({ operation: 'delete', status: 500 })
        await t().failNext({ operation: 'delete', status: 403 })
        await expectError(await remove('org-1', 'x', {}), 401, 'Unauthorized')
        await expectError(
          await identify({ id: 'other-op', orgId: 'org-1', bad: 1 }),
          400,
          'Invalid request parameters',
        )
        await expectError(await remove('org-1', 'x'), 500, 'Internal server error')
        await expectError(await remove('org-1', 'x'), 403, 'Forbidden')
        await expectError(await remove('org-1', 'x'), 404, 'User not found')
      })

      it('replaces the answer whatever the body', async () => {
        await t().failNext({ operation: 'identify', status: 403 })
        await expectError(await identifyRaw('not json', json), 403, 'Forbidden')
      })

      it('answers after the fault delay', async () => {
        await t().failNext({ operation: 'identify', status: 500, delayMs: 150 })
        const started = performance.now()
        await expectError(
          await identify({ id: 'slow', orgId: 'org-1' }),
          500,
          'Internal server error',
        )
        expect(performance.now() - started).toBeGreaterThanOrEqual(140)
      })
    })

    describe('controls', () => {
      it('reset brings back the seeded state and clears the journal and the faults', async () => {
        const seeded = await t().state()
        await expectIdentified(await identify({ id: 'gone-after-reset', orgId: 'org-1' }))
        const victim = seeded.users.find((u) => u.orgId === 'org-1')
        if (!victim) throw new Error('org-1 has no seeded user')
        await expectDeleted(await remove('org-1', victim.id), victim.id)
        await t().failNext({ operation: 'identify', status: 500 })
        await t().reset()
        expect(await t().state()).toEqual(seeded)
        expect(await t().requests()).toEqual([])
        await expectIdentified(await identify({ id: 'after-reset', orgId: 'org-1' }))
      })

      it('journals every API call, oldest first, without keys or tokens', async () => {
        const { token } = await expectIdentified(await identify({ id: 'j', orgId: 'org-1' }))
        await remove('org-1', 'j')
        await t().fetch(t().url(identifyPath))
        const entries = await t().requests()
        expect(entries.map(({ method, path, status }) => ({ method, path, status }))).toEqual([
          { method: 'POST', path: identifyPath, status: 200 },
          { method: 'DELETE', path: '/api/v1/users/org-1/j', status: 200 },
          { method: 'GET', path: identifyPath, status: 405 },
        ])
        for (const entry of entries) expect(entry.time).toMatch(dateTime)
        const text = JSON.stringify(entries)
        expect(text).not.toContain(token)
        expect(text).not.toContain(key())
      })
    })
  })

  describe(`${name}: strict user groups`, () => {
    const t = useWayIn(start, { strictUserGroups: true })
    const identify = (body: unknown) =>
      t().fetch(t().url(identifyPath), {
        method: 'POST',
        headers: {
          authorization: `Bearer ${t().credentials[0]?.apiKeys[0]}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify(body),
      })

    it('refuses a group the organisation does not have with 400, and changes nothing', async () => {
      const before = await t().state()
      await expectError(
        await identify({ id: 's', orgId: 'org-1', data: { userGroups: ['grp-1', 'nope'] } }),
        400,
        'Invalid request parameters',
      )
      expect(await t().state()).toEqual(before)
      await expectIdentified(
        await identify({ id: 's', orgId: 'org-1', data: { userGroups: ['grp-1'] } }),
      )
    })

    it('checks the organisation first, so a foreign orgId still gets 403', async () => {
      await expectError(
        await identify({ id: 's', orgId: 'org-2', data: { userGroups: ['nope'] } }),
        403,
        'Forbidden',
      )
    })
  })

  describe(`${name}: 403 for authentication failures`, () => {
    const t = useWayIn(start, { authFailureStatus: 403 })

    it('answers a missing or unknown key 403 Forbidden, without WWW-Authenticate', async () => {
      for (const headers of [{}, { authorization: 'Bearer unknown' }] as Record<string, string>[]) {
        const res = await t().fetch(t().url('/api/v1/users/org-1/x'), { method: 'DELETE', headers })
        expect(res.headers.get('www-authenticate')).toBeNull()
        await expectError(res, 403, 'Forbidden')
      }
    })
  })

  const added: WayInOptions = {
    organisations: [
      { orgId: 'acme', apiKeys: ['acme-key'] },
      { orgId: 'empty', apiKeys: ['empty-key'], users: 0 },
    ],
  }
  const reason = cannot(added)
  describe.skipIf(reason !== undefined)(
    `${name}: organisations added to the seed${reason ? ` (skipped: ${reason})` : ''}`,
    () => {
      const t = useWayIn(start, added)

      it('registers the keys, and seeds users unless asked for none', async () => {
        const state = await t().state()
        expect(state.users.some((u) => u.orgId === 'acme')).toBe(true)
        expect(state.users.some((u) => u.orgId === 'empty')).toBe(false)
        const res = await t().fetch(t().url(identifyPath), {
          method: 'POST',
          headers: { authorization: 'Bearer empty-key', 'content-type': 'application/json' },
          body: JSON.stringify({ id: 'first', orgId: 'empty' }),
        })
        await expectIdentified(res)
      })
    },
  )
}

function useWayIn(start: StartWayIn, options?: WayInOptions): () => WayIn {
  let target: WayIn | undefined
  beforeAll(async () => {
    target = await start(options)
  })
  beforeEach(async () => {
    await target?.reset()
  })
  afterAll(async () => {
    await target?.close()
  })
  return () => {
    if (!target) throw new Error('the way in has not started')
    return target
  }
}
