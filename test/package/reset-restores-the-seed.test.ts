import { afterEach, expect, it } from 'vitest'
import { buildDataset } from '../../fixtures/build-dataset.ts'
import { defaultDatasetText } from '../../fixtures/seed.ts'
import { createMockApi, type MockApi } from '../../src/root/index.ts'

/** From sources there is no prebuilt default data (see test/rules/prebuilt-default-data.test.ts). */
const built = globalThis as { BUILT_DEFAULT_DATASET?: string }
afterEach(() => {
  delete built.BUILT_DEFAULT_DATASET
})

/** Changes seeded records in place through `db` and adds one, then resets, three times over. */
async function expectResetsToRestore(api: MockApi, seeded: unknown) {
  for (let round = 0; round < 3; round++) {
    const user = api.db.users.findFirst((q) => q.where({ userGroups: (g) => g.length > 0 }))
    if (!user) throw new Error('no seeded user with groups')
    user.userGroups.push(`grp-changed-${round}`)
    user.firstName = `Changed ${round}`
    await api.db.users.create({ ...user, id: `added-${round}`, userId: `added-${round}` })
    await api.reset()
    expect(await api.state()).toEqual(seeded)
  }
}

it('gives back exactly the seeded records at every reset, whatever a test changed in place through db', async () => {
  const api = createMockApi({ seed: 3 })
  await api.ready
  const seeded = await api.state()
  expect(seeded).toEqual(buildDataset({ seed: 3 }).state)
  await expectResetsToRestore(api, seeded)
})

it('does the same from the prebuilt default data, which a mock loads without parsing it again', async () => {
  built.BUILT_DEFAULT_DATASET = defaultDatasetText()
  const api = createMockApi()
  await api.ready
  expect(await api.state()).toEqual(buildDataset().state)
  await expectResetsToRestore(api, buildDataset().state)
})

it("gives back an organisation's seeded records at its own reset, the first reset of the mock", async () => {
  const api = createMockApi({ seed: 3 })
  await api.ready
  const seeded = await api.state()
  const user = api.db.users.findFirst((q) => q.where({ userGroups: (g) => g.length > 0 }))
  if (!user) throw new Error('no seeded user with groups')
  user.userGroups.push('grp-changed')
  user.firstName = 'Changed'
  await api.reset({ orgId: user.orgId })
  const byUserId = (a: { userId: string }, b: { userId: string }) =>
    a.userId.localeCompare(b.userId)
  expect((await api.state()).users.sort(byUserId)).toEqual(seeded.users.sort(byUserId))
})
