import { describe, expect, it } from 'vitest'
import { buildDataset } from '../../fixtures/build-dataset.ts'
import { Database } from '../../src/model/database.ts'
import { resolveOptions } from '../../src/options/mock-api-options.ts'
import { createRuleContext } from '../../src/rules/context.ts'
import { identifyUser } from '../../src/rules/identify.ts'

async function setup() {
  const { state } = buildDataset({
    organisations: 0,
    extraOrganisations: [{ orgId: 'acme', apiKeys: ['acme-key'], users: 3 }],
  })
  const db = new Database()
  await db.load(state)
  const ctx = createRuleContext(resolveOptions(), db)
  return { ctx, known: state.users[0]?.id as string }
}

describe('the identify rule', () => {
  it('answers a known user that names no new group at once, with no promise to wait for', async () => {
    const { ctx, known } = await setup()
    const answer = identifyUser(ctx, 'acme', {
      id: known,
      orgId: 'acme',
      data: { firstName: 'Ada' },
    })
    expect(answer).not.toBeInstanceOf(Promise)
    expect(answer).toMatchObject({ body: { id: known, data: { firstName: 'Ada' } }, shape: 'full' })
  })

  it('waits for the model only when it creates a record: a new user, or a new group', async () => {
    const { ctx, known } = await setup()
    const created = identifyUser(ctx, 'acme', { id: 'new-user', orgId: 'acme' })
    expect(created).toBeInstanceOf(Promise)
    expect(await created).toMatchObject({
      body: { id: 'new-user', data: { registrationStatus: 'registered' } },
    })
    const grouped = identifyUser(ctx, 'acme', {
      id: known,
      orgId: 'acme',
      data: { userGroups: ['a-new-group'] },
    })
    expect(grouped).toBeInstanceOf(Promise)
    expect((await grouped).body.data.userGroups).toEqual(['a-new-group'])
  })

  it('writes only what a sign-in changes: the same groups again leave the stored list as it is', async () => {
    const { ctx, known } = await setup()
    const stored = ctx.db.users.get('acme', known)
    const groups = ['grp-a', 'grp-b']
    await identifyUser(ctx, 'acme', { id: known, orgId: 'acme', data: { userGroups: groups } })
    const kept = stored?.userGroups
    expect(kept).toEqual(groups)
    expect(kept).not.toBe(groups)
    // Sent again, once with a duplicate: nothing to write, and no copy replaces the list held.
    for (const userGroups of [groups, ['grp-a', 'grp-b', 'grp-a']]) {
      identifyUser(ctx, 'acme', { id: known, orgId: 'acme', data: { userGroups } })
      expect(stored?.userGroups).toBe(kept)
    }
    identifyUser(ctx, 'acme', { id: known, orgId: 'acme', data: { userGroups: ['grp-b'] } })
    expect(stored?.userGroups).toEqual(['grp-b'])
  })
})
