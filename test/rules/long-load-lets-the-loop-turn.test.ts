import { expect, it } from 'vitest'
import { seedDataset } from '../../fixtures/seed.ts'
import { MockCore } from '../../src/core/mock-core.ts'

/**
 * A large start-up lets the event loop turn while it loads its records: a stop signal (which a
 * container's PID 1 honours only in the loop) or a health check is then answered mid-load, rather
 * than after every record is in. Counted up to `serving` (the records loaded and indexed), before
 * the adoption into `@msw/data`, which turns the loop of its own.
 */
it('turns the event loop while it loads the seeded records', async () => {
  const users = 20_000
  const core = new MockCore(seedDataset, { seededOrganisations: 1, usersPerOrganisation: users })
  let loaded = false
  void core.serving.then(() => {
    loaded = true
  })
  let turns = 0
  while (!loaded) {
    await new Promise<void>((resolve) => setImmediate(resolve))
    turns += 1
  }
  expect(core.db.users.count()).toBe(users)
  // At least one turn for each slice of 2,048 records: the users alone are nine of them.
  expect(turns).toBeGreaterThanOrEqual(Math.floor(users / 2048))
}, 60_000)
