import { afterEach, describe, expect, it } from 'vitest'
import { buildDataset } from '../../fixtures/build-dataset.ts'
import { defaultDatasetText, seedDataset } from '../../fixtures/seed.ts'
import type { Dataset } from '../../src/model/dataset.ts'
import { type MockApiOptions, resolveOptions } from '../../src/options/mock-api-options.ts'

/**
 * The package carries the default data prebuilt (`npm run build` writes `defaultDatasetText()`
 * as the global `BUILT_DEFAULT_DATASET`), and the seed takes it only when the options ask for
 * exactly that data. From sources there is no such global: here a test sets one.
 */
const built = globalThis as { BUILT_DEFAULT_DATASET?: string }
afterEach(() => {
  delete built.BUILT_DEFAULT_DATASET
})

/** A dataset that no seed builds, to tell the prebuilt text from a dataset built again. */
const marker: Dataset = {
  state: { ...buildDataset({ organisations: 0 }).state },
  credentials: [{ orgId: 'prebuilt', name: 'Prebuilt', apiKeys: [] }],
}

describe('the prebuilt default data', () => {
  it('is, once parsed, exactly the data the seed builds for the default options', () => {
    expect(JSON.parse(defaultDatasetText())).toStrictEqual(seedDataset(resolveOptions()))
  })

  it('is what the seed gives for the default options', () => {
    built.BUILT_DEFAULT_DATASET = JSON.stringify(marker)
    expect(seedDataset(resolveOptions())).toStrictEqual(marker)
    expect(
      seedDataset(resolveOptions({ seed: 1, seededOrganisations: 2, usersPerOrganisation: 8 })),
    ).toStrictEqual(marker)
  })

  it.each<[string, MockApiOptions]>([
    ['another seed', { seed: 2 }],
    ['more organisations', { seededOrganisations: 3 }],
    ['fewer users', { usersPerOrganisation: 4 }],
    ['an added organisation', { organisations: [{ orgId: 'acme', apiKeys: ['test-key'] }] }],
    ['a data file', { data: { organisations: [] } }],
  ])('is not what the seed gives for %s: it builds that data', (_, options) => {
    const resolved = resolveOptions(options)
    const builtFromOptions = seedDataset(resolved)
    built.BUILT_DEFAULT_DATASET = JSON.stringify(marker)
    expect(seedDataset(resolved)).toStrictEqual(builtFromOptions)
  })

  it('is a new copy for each mock, which none shares', () => {
    built.BUILT_DEFAULT_DATASET = defaultDatasetText()
    const [first, second] = [seedDataset(resolveOptions()), seedDataset(resolveOptions())]
    expect(first).toStrictEqual(second)
    expect(first).not.toBe(second)
    expect(first.state.users[0]).not.toBe(second.state.users[0])
  })
})
