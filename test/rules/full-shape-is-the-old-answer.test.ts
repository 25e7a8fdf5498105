import { describe, expect, it } from 'vitest'
import { seedDataset } from '../../fixtures/index.ts'
import { userProfileSchema } from '../../src/api/api-schemas.ts'
import { MockCore } from '../../src/core/mock-core.ts'
import type { MockApiOptions } from '../../src/root/index.ts'
import { toUserProfile } from '../../src/rules/profile.ts'
import { dispatchRaw } from '../support/way-in.ts'

/**
 * Every identify answer of the `full` shape, byte for byte, against the answer built the way it
 * was before the answer shapes existed: the stored user through `toUserProfile`, serialised as it
 * is, nothing left out or rewritten.
 */
async function expectOldAnswers(
  options: MockApiOptions,
  setUp?: (core: MockCore) => Promise<void>,
) {
  let minted = 0
  const core = new MockCore(seedDataset, { ...options, generateToken: () => `token-${++minted}` })
  await core.ready
  await setUp?.(core)
  let answers = 0
  for (const { orgId, apiKeys } of core.credentials) {
    const users = (await core.state()).users.filter((u) => u.orgId === orgId)
    const calls = [
      ...users.flatMap((u, i) => [
        { id: u.id, data: {} },
        { id: u.id, data: { firstName: 'Zed', userGroups: i % 2 ? ['b', 'a'] : [] } },
      ]),
      { id: 'brand-new', data: { country: 'FR', userGroups: ['z', 'y'] } },
      { id: 'brand-new', data: {} },
    ]
    for (const { id, data } of calls) {
      const answer = await dispatchRaw(core, {
        method: 'POST',
        target: '/api/v1/users/identify',
        headers: { authorization: `Bearer ${apiKeys[0]}`, 'content-type': 'application/json' },
        body: JSON.stringify({ id, orgId, data }),
      })
      expect(answer.status).toBe(200)
      const old = await core.transact((ctx) => {
        const user = ctx.db.users.get(orgId, id)
        if (!user) throw new Error(`no user ${id}`)
        return JSON.stringify({ id, data: toUserProfile(ctx, user), token: `token-${minted}` })
      })
      expect(answer.text).toBe(old)
      answers++
    }
  }
  expect(answers).toBeGreaterThan(15)
  return core
}

describe('the full answer shape', () => {
  it('is the answer before answer shapes existed, byte for byte (the default)', async () => {
    const core = await expectOldAnswers({})
    expect(core.calls('identify').every((c) => c.shape === 'full')).toBe(true)
  })

  it("is an organisation's own setting that wins over a mock-wide varied", async () => {
    await expectOldAnswers({ shapes: 'varied', seededOrganisations: 1 }, async (core) => {
      await core.organisations.setShapes('org-1', 'full')
    })
  })

  it('creates new users registered, as before', async () => {
    const core = new MockCore(seedDataset, {})
    await core.ready
    const [org] = core.credentials
    const answer = await dispatchRaw(core, {
      method: 'POST',
      target: '/api/v1/users/identify',
      headers: { authorization: `Bearer ${org?.apiKeys[0]}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'new', orgId: org?.orgId }),
    })
    const { data } = JSON.parse(answer.text)
    expect(data.registrationStatus).toBe('registered')
    expect(data.registeredAt).toBe(data.lastActive)
  })

  it("sends every field of the response schema, in the schema's order, with a learning path or without", async () => {
    const core = new MockCore(seedDataset, {})
    await core.ready
    const answers = await core.transact((ctx) =>
      ctx.db.collections.users.all().map((user) => ({
        assigned: ctx.db.learningProgress.get(user.userId) !== undefined,
        fields: Object.keys(toUserProfile(ctx, user)),
      })),
    )
    expect(new Set(answers.map((a) => a.assigned))).toEqual(new Set([true, false]))
    for (const { fields } of answers) expect(fields).toEqual(Object.keys(userProfileSchema.shape))
  })
})
