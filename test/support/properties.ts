import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { MockState } from '../../src/root/index.ts'
import { expectAnswer, expectedAnswer, type World } from './api-oracle.ts'
import {
  type ApiCase,
  apiCase,
  type CaseOptions,
  type MockConfiguration,
  mockConfigurations,
  worldOf,
} from './property-world.ts'
import type { Answer, WayIn } from './way-in.ts'

/**
 * The one runner of the property-based tests, and their fixed seed. A failure prints the seed and
 * the path of the smallest failing case; `FC_SEED=<seed> FC_PATH=<path>` replays it, and
 * `FC_RUNS=<n>` runs more (or fewer) cases.
 */
export const propertyRuns = Number(process.env.FC_RUNS ?? 1000)
export const propertySeed = Number(process.env.FC_SEED ?? 20250601)

/** `scale` multiplies the runs, for the ways in where a case costs next to nothing. */
export function propertyParameters(scale = 1): fc.Parameters<unknown> {
  return {
    seed: propertySeed,
    numRuns: Math.round(propertyRuns * scale),
    ...(process.env.FC_PATH && { path: process.env.FC_PATH }),
  }
}

/** Prints the seed once per file, so a CI log says how to replay whatever it ran. */
export function announceSeed(file: string): void {
  console.log(
    `${file}: fast-check seed ${propertySeed}, at least ${propertyRuns} runs per property (replay with FC_SEED=${propertySeed})`,
  )
}

/**
 * Runs `check` on every case `options` generate (those `keep` lets through), from the suite's
 * fixed seed, with `scale` times its runs.
 */
export function assertApiCases(
  options: CaseOptions,
  check: (c: ApiCase) => Promise<void>,
  { scale = 1, keep }: { scale?: number; keep?: (c: ApiCase) => boolean } = {},
): Promise<void> {
  const cases = apiCase(options)
  return fc.assert(
    fc.asyncProperty(keep ? cases.filter(keep) : cases, check),
    propertyParameters(scale),
  )
}

/** One property: its title, and the calls it generates (the seeded state is added). */
export interface ApiProperty {
  title: string
  cases: Omit<CaseOptions, 'state' | 'credentials'>
  scale?: number
  keep?: (c: ApiCase) => boolean
}

/** What one way in does to a case, beyond answering it as the contract says. */
export interface PropertyRun<W extends WayIn> {
  /** Whether a HEAD answer comes without a body: true for every transport, not the bare dispatch. */
  bodilessHead: boolean
  /** The case as sent: a way in may only carry part of what is generated. */
  sent?: (c: ApiCase) => ApiCase
  /** The request as it reaches the mock, where the way in rewrites it on the way. */
  arriving?: (c: ApiCase) => ApiCase
  /** Checks a case the contract does not describe (refused before the mock); true when it did. */
  outsideTheContract?: (c: ApiCase, answer: Answer, way: W) => boolean
  /** Checks what this way in shows beyond the answer and the state, such as its journal. */
  expectAlso?: (c: ApiCase, answer: Answer, world: World, way: W) => void
  properties: ApiProperty[]
}

/**
 * Runs each of `run.properties` through the ways in `start` opens, one per mock configuration:
 * every generated case on a freshly reset mock, its answer and the state after it checked against
 * the oracle. Returns the ways in and the state they were seeded with, for checks after them.
 */
export function describeProperties<W extends WayIn>(
  name: string,
  start: (options: (typeof mockConfigurations)[MockConfiguration]) => Promise<W>,
  run: PropertyRun<W>,
): { ways: () => Record<MockConfiguration, W>; seeded: () => MockState } {
  announceSeed(name)
  const ways = {} as Record<MockConfiguration, W>
  let seeded: MockState

  beforeAll(async () => {
    for (const configuration of Object.keys(mockConfigurations) as MockConfiguration[]) {
      ways[configuration] = await start(mockConfigurations[configuration])
    }
    seeded = await ways.default.core.state()
  })
  afterAll(() => Promise.all(Object.values(ways).map((way) => way.close())))

  async function check(generated: ApiCase) {
    const c = run.sent?.(generated) ?? generated
    const way = ways[c.configuration]
    await way.core.reset()
    if (c.fault) way.core.failNext(c.fault.operation, { status: c.fault.status })
    const answer = await way.send({
      method: c.method,
      target: c.target,
      headers: [
        ...c.otherHeaders,
        ...(c.authorization === null
          ? []
          : [['authorization', c.authorization] as [string, string]]),
        ...(c.contentType === null ? [] : [['content-type', c.contentType] as [string, string]]),
      ],
      body: c.body,
    })
    if (run.outsideTheContract?.(c, answer, way)) return
    const world = worldOf(c.configuration, way.core.credentials, seeded, c.fault)
    const head = run.bodilessHead && c.method === 'HEAD'
    const observed = { ...answer, text: head ? undefined : answer.text }
    expectAnswer(
      world,
      expectedAnswer(world, run.arriving?.(c) ?? c),
      observed,
      await way.core.state(),
    )
    if (head) expect(answer.text).toBe('')
    run.expectAlso?.(c, answer, world, way)
  }

  describe(`properties through ${name}`, () => {
    for (const property of run.properties) {
      it(property.title, async () => {
        const { credentials } = ways.default.core
        await assertApiCases({ state: seeded, credentials, ...property.cases }, check, property)
      }, 120_000)
    }
  })
  return { ways: () => ways, seeded: () => seeded }
}
