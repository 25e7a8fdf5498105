import { afterEach, expect, it, vi } from 'vitest'
import {
  announceSeed,
  propertyParameters,
  propertyRuns,
  propertySeed,
} from '../support/properties.ts'

afterEach(() => vi.restoreAllMocks())

it('runs every property from a fixed seed with at least 1,000 cases, unless told otherwise', () => {
  // FC_RUNS and FC_SEED are for a person replaying or widening a run; CI sets neither.
  if (process.env.FC_RUNS === undefined) expect(propertyRuns).toBeGreaterThanOrEqual(1000)
  if (process.env.FC_SEED === undefined) expect(propertySeed).toBe(20250601)
  expect(propertyParameters()).toMatchObject({ seed: propertySeed, numRuns: propertyRuns })
  expect(propertyParameters(3).numRuns).toBe(propertyRuns * 3)
})

it('prints the seed and how to replay it', () => {
  const log = vi.spyOn(console, 'log').mockImplementation(() => {})
  announceSeed('some.test')
  expect(log).toHaveBeenCalledWith(
    `some.test: fast-check seed ${propertySeed}, at least ${propertyRuns} runs per property (replay with FC_SEED=${propertySeed})`,
  )
})
