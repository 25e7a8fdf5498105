import { describe, expect, it, vi } from 'vitest'
import { createMockApi } from '../../src/root/index.ts'

/**
 * The seeded API keys are drawn from a stream of their own. They used to share the users' stream,
 * so a profile field added to the builder (one more draw a user) changed every key past `org-1`'s,
 * those the README and every banner print included.
 */

const profileDraws = vi.hoisted(() => ({ extra: 0 }))

vi.mock('../../fixtures/builders.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../fixtures/builders.ts')>()
  return {
    ...actual,
    // A builder with one more profile field: one more draw from the users' stream a user.
    buildUser: (...args: Parameters<typeof actual.buildUser>) => {
      const faker = args[1]
      if (faker) {
        faker.string.alpha(5)
        profileDraws.extra++
      }
      return actual.buildUser(...args)
    },
  }
})

/** The keys of the default seed, as the README prints them (and `org-3`'s). */
const printedKeys = [
  'sk_test_pI0i95bloxpGcS1Fpy8cNYjG',
  'sk_test_ST52aS6qXxGjGP1KZKhM6rUi',
  'sk_test_h81Gdgu3z9AH6pHp3xFvWAU8',
]

const keysOf = (api: ReturnType<typeof createMockApi>) => api.credentials.flatMap((c) => c.apiKeys)

describe('the seeded API keys', () => {
  it('stay as printed when the profile builder draws more', () => {
    const api = createMockApi({ seededOrganisations: 3 })
    expect(profileDraws.extra).toBeGreaterThan(0)
    expect(keysOf(api)).toEqual(printedKeys)
  })

  it('do not depend on how many users each organisation draws', () => {
    const few = createMockApi({ seededOrganisations: 3, usersPerOrganisation: 1 })
    const many = createMockApi({ seededOrganisations: 3, usersPerOrganisation: 9 })
    expect(keysOf(few)).toEqual(printedKeys)
    expect(keysOf(many)).toEqual(printedKeys)
  })
})
