import { describe, expect, it } from 'vitest'
import { bulkFrom } from '../../fixtures/build-dataset.ts'
import { buildDataset, buildIdentifyRequest, buildUser, createFaker } from '../../fixtures/index.ts'
import { mockStateSchema } from '../../src/model/database.ts'
import { userRecordSchema } from '../../src/root/advanced.ts'
import { createMockApi, identifyUserRequestSchema } from '../../src/root/index.ts'
import { dispatchJson } from '../support/way-in.ts'

describe('seeded data', () => {
  it('is identical for the same seed', () => {
    expect(buildDataset({ seed: 42 })).toEqual(buildDataset({ seed: 42 }))
  })

  // A load copies the seeded records without the schemas' check (they are marked `generated`):
  // this is that check, the bulk builder's users included.
  it('is what the schemas make of it, field for field and in their order', () => {
    const { state } = buildDataset({ organisations: 2, usersPerOrganisation: bulkFrom + 40 })
    expect(state.users.some((u) => u.id.endsWith(String(bulkFrom + 39)))).toBe(true)
    expect(JSON.stringify(mockStateSchema.parse(state))).toBe(JSON.stringify(state))
  })

  it('differs between seeds', () => {
    const a = buildDataset({ seed: 1 })
    const b = buildDataset({ seed: 2 })
    expect(a.credentials[0]?.apiKeys).not.toEqual(b.credentials[0]?.apiKeys)
    expect(a.state.users.map((u) => u.userId)).not.toEqual(b.state.users.map((u) => u.userId))
    expect(a.state.users.map((u) => u.firstName)).not.toEqual(b.state.users.map((u) => u.firstName))
  })

  it('gives every organisation each registration status, learners in progress and done, and a certificate', () => {
    const { state } = buildDataset({ organisations: 3 })
    expect(state.organisations.map((o) => o.orgId)).toEqual(['org-1', 'org-2', 'org-3'])
    for (const { orgId } of state.organisations) {
      const users = state.users.filter((u) => u.orgId === orgId)
      expect(new Set(users.map((u) => u.registrationStatus))).toEqual(
        new Set(['registered', 'unregistered', 'archived']),
      )
      const progress = state.learningProgress.filter((p) =>
        users.some((u) => u.userId === p.userId),
      )
      expect(progress.some((p) => p.completedAt === null)).toBe(true)
      expect(progress.some((p) => p.completedAt !== null)).toBe(true)
      const certified = progress.filter((p) =>
        state.certificates.some(
          (c) => c.userId === p.userId && c.learningPathId === p.learningPathId,
        ),
      )
      expect(certified.length).toBeGreaterThan(0)
      expect(state.apiKeys.some((k) => k.orgId === orgId)).toBe(true)
    }
  })

  it('keeps seeded API keys only as hashes in the state', () => {
    const { state, credentials } = buildDataset()
    const text = JSON.stringify(state)
    for (const key of credentials.flatMap((c) => c.apiKeys)) expect(text).not.toContain(key)
  })

  it('is what a mock with that seed holds, and unaffected by the mock changing it', async () => {
    const api = createMockApi({ seed: 9 })
    const state = await api.state()
    expect(state).toEqual(buildDataset({ seed: 9 }).state)
    const [org] = api.credentials
    const user = state.users.find((u) => u.orgId === org?.orgId && u.userGroups.length > 0)
    if (!org || !user) throw new Error('no seeded user with groups')
    const changed = await dispatchJson(api, 'POST', '/api/v1/users/identify', {
      key: org.apiKeys[0],
      body: {
        id: user.id,
        orgId: user.orgId,
        data: { firstName: 'Changed', userGroups: ['grp-3'] },
      },
    })
    expect(changed.body.data).toMatchObject({ firstName: 'Changed', userGroups: ['grp-3'] })
    await api.reset()
    expect(await api.state()).toEqual(buildDataset({ seed: 9 }).state)
  })
})

describe('fixture builders', () => {
  it('build valid records with overrides, deterministic under a seeded Faker', () => {
    const user = buildUser({ sex: 'female', orgId: 'acme' }, createFaker(5))
    expect(userRecordSchema.parse(user)).toEqual(user)
    expect(user).toMatchObject({ sex: 'female', orgId: 'acme' })
    expect(buildUser({}, createFaker(5)).userId).toBe(buildUser({}, createFaker(5)).userId)
    const request = buildIdentifyRequest({ orgId: 'acme' })
    expect(identifyUserRequestSchema.parse(request)).toEqual(request)
  })
})
