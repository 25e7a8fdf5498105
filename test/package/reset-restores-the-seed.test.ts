import { expect, it } from 'vitest'
import { createMockApi } from '../../src/root/index.ts'

it('gives back exactly the seeded records at every reset, whatever a test changed in place through db', async () => {
  const api = createMockApi()
  await api.ready
  const seeded = await api.state()
  for (let round = 0; round < 3; round++) {
    const user = api.db.users.findFirst((q) => q.where({ userGroups: (g) => g.length > 0 }))
    if (!user) throw new Error('no seeded user with groups')
    user.userGroups.push(`grp-changed-${round}`)
    user.firstName = `Changed ${round}`
    await api.db.users.create({ ...user, id: `added-${round}`, userId: `added-${round}` })
    await api.reset()
    expect(await api.state()).toEqual(seeded)
  }
})
