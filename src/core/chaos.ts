import * as z from 'zod'
import { type ChaosReading, chaosOptionSchema } from '../api/chaos-setting.ts'
import { ApiError, parseOptions } from '../base/errors.ts'
import { hashOf, seededRandom } from '../base/seeded-random.ts'
import { parseInput } from '../rules/organisations.ts'
import {
  type FailureCase,
  type FailureCaseName,
  failureCaseNamed,
  failureCaseNameSchema,
  failureCases,
} from './failure-cases.ts'
import { type TakenFault, takenOfCase } from './faults.ts'
import type { Operation } from './routes.ts'

export type { ChaosReading } from '../api/chaos-setting.ts'

/**
 * Chaos at a rate, as `PUT /__mock/chaos` and the tenant handle's `setChaos` take it: the option
 * `chaos`, each case checked against the failure cases.
 *
 * @example chaosSettingSchema.parse({ rate: 0.05, cases: ['delete-reset'], seed: 7 })
 */
export const chaosSettingSchema = chaosOptionSchema.extend({
  cases: z
    .array(failureCaseNameSchema)
    .min(1)
    .max(1000)
    .optional()
    .describe(chaosOptionSchema.shape.cases.description ?? ''),
})

export type ChaosSetting = z.input<typeof chaosSettingSchema>

/** The option `chaos` as a mock's constructor checks it: built once, not for each mock. */
const chaosOptionInput = z.strictObject({ chaos: chaosSettingSchema.optional() })

/** A chaos under way: its setting (the seed filled in), its stream, and what it drew so far. */
interface Running {
  readonly rate: number
  readonly cases: readonly FailureCaseName[]
  /** The cases of each operation it draws from, each as a call meets it. */
  readonly byOperation: ReadonlyMap<Operation, readonly TakenFault[]>
  readonly seed: number
  readonly calls?: number
  readonly forMs?: number
  /** The real time it began, in milliseconds. */
  readonly since: number
  readonly random: () => number
  drawn: number
  failed: number
}

/** What the chaos works over: which organisations exist, and the real time in milliseconds. */
export interface ChaosDeps {
  has(orgId: string): boolean
  realMs(): number
}

/** A seed for a chaos given none: shown by `GET`, so that a failing run can be replayed. */
const drawnSeed = () => Math.floor(Math.random() * 2 ** 31)

/**
 * Chaos at a rate: the mock's (`orgId` `undefined`), which every organisation without one of its
 * own meets, and each organisation's own, which replaces the mock's for its calls. Each call of a
 * scope that no queued fault answered draws the next number of the scope's seeded stream (below
 * the rate: a failure) and, when it fails, the next picks the case, uniformly from those of the
 * call's operation. The same seed and the same sequence of calls in a scope give the same
 * failures. A chaos ends after `calls` draws or `forMs` of real time, and with a reset of its
 * scope. Kept in memory, as the queued faults are: {@link settingOf} gives an organisation's, to
 * keep it elsewhere and set it again.
 *
 * @example
 * chaos.set('org-1', { rate: 0.05, seed: 7 })
 * chaos.draw('delete', 'org-1') // the fault of a case, or undefined
 */
export class Chaos {
  readonly #deps: ChaosDeps
  /** The option's chaos, its seed drawn once: what a reset of the whole mock starts again. */
  readonly #option: ChaosSetting | undefined
  #mock: Running | undefined
  readonly #own = new Map<string, Running>()

  /** `option`: the option `chaos`, its cases checked here (a `TypeError` naming a bad one). */
  constructor(deps: ChaosDeps, option?: z.input<typeof chaosOptionSchema>) {
    this.#deps = deps
    const { chaos } = parseOptions(chaosOptionInput, { chaos: option as ChaosSetting | undefined })
    this.#option = chaos && { ...chaos, seed: chaos.seed ?? drawnSeed() }
    this.#mock = this.#option && this.#start(this.#option)
  }

  /**
   * The chaos of the scope (the mock's without `orgId`, else the organisation's own), `null` when
   * it has none under way; 404 `Not found` for an organisation the mock does not have.
   */
  read(orgId?: string): ChaosReading | null {
    this.#known(orgId)
    const running = this.#current(orgId)
    return running ? readingOf(running) : null
  }

  /**
   * Starts a chaos for the scope, in place of the one under way: a `TypeError` (400) naming the
   * problem for anything but a chaos setting, 404 `Not found` for an unknown organisation.
   */
  set(orgId: string | undefined, setting: ChaosSetting): ChaosReading {
    this.#known(orgId)
    const running = this.#start(parseInput(chaosSettingSchema, setting))
    if (orgId === undefined) this.#mock = running
    else this.#own.set(orgId, running)
    return readingOf(running)
  }

  /** Ends the chaos of the scope, if any; 404 `Not found` for an unknown organisation. */
  end(orgId?: string): void {
    this.#known(orgId)
    if (orgId === undefined) this.#mock = undefined
    else this.#own.delete(orgId)
  }

  /**
   * The failure a call of `operation` owned by `owner` meets by chance, if any: drawn from the
   * owner's own chaos, else from the mock's. A call of an operation none of whose cases the chaos
   * draws from draws nothing.
   */
  draw(operation: Operation, owner: string): TakenFault | undefined {
    if (this.#mock === undefined && this.#own.size === 0) return undefined
    const running = this.#current(owner) ?? this.#current(undefined)
    const cases = running?.byOperation.get(operation)
    if (running === undefined || cases === undefined) return undefined
    running.drawn += 1
    if (running.random() >= running.rate) return undefined
    running.failed += 1
    return cases[Math.floor(running.random() * cases.length)]
  }

  /**
   * The setting that starts organisation `orgId`'s chaos again as it began (its seed included),
   * if it has one under way.
   */
  settingOf(orgId: string): ChaosSetting | undefined {
    const running = this.#current(orgId)
    return running && settingOfRunning(running)
  }

  /** Ends organisation `orgId`'s own chaos: a reset or a removal of it. */
  forget(orgId: string): void {
    this.#own.delete(orgId)
  }

  /** A reset of the whole mock: every chaos ends, and the option's starts again from its seed. */
  restart(): void {
    this.#own.clear()
    this.#mock = this.#option && this.#start(this.#option)
  }

  /** The chaos under way in the scope; one that has run its course is ended here. */
  #current(orgId: string | undefined): Running | undefined {
    const running = orgId === undefined ? this.#mock : this.#own.get(orgId)
    if (running === undefined) return undefined
    const over =
      (running.calls !== undefined && running.drawn >= running.calls) ||
      (running.forMs !== undefined && this.#deps.realMs() - running.since >= running.forMs)
    if (!over) return running
    if (orgId === undefined) this.#mock = undefined
    else this.#own.delete(orgId)
    return undefined
  }

  #start(setting: ChaosSetting): Running {
    const seed = setting.seed ?? drawnSeed()
    const cases = setting.cases ?? failureCases.map((c) => c.name)
    const byOperation = new Map<Operation, TakenFault[]>()
    for (const name of cases) {
      const { operation } = failureCaseNamed(name) as FailureCase
      const taken = byOperation.get(operation) ?? []
      taken.push({ ...takenOfCase(name), chaos: true })
      byOperation.set(operation, taken)
    }
    return {
      rate: setting.rate,
      cases,
      byOperation,
      seed,
      ...(setting.calls !== undefined && { calls: setting.calls }),
      ...(setting.forMs !== undefined && { forMs: setting.forMs }),
      since: this.#deps.realMs(),
      random: seededRandom(hashOf(seed, 'chaos')),
      drawn: 0,
      failed: 0,
    }
  }

  /** 404 `Not found` for an organisation the mock does not have. */
  #known(orgId: string | undefined): void {
    if (orgId !== undefined && !this.#deps.has(orgId)) throw new ApiError('notFound')
  }
}

/** The setting that starts `running` again as it began, its seed included. */
function settingOfRunning({ rate, cases, seed, calls, forMs }: Running) {
  return {
    rate,
    cases: [...cases],
    seed,
    ...(calls !== undefined && { calls }),
    ...(forMs !== undefined && { forMs }),
  }
}

/** What `GET /__mock/chaos` shows of a chaos under way: its setting, and how it has gone. */
function readingOf(running: Running): ChaosReading {
  return { ...settingOfRunning(running), drawn: running.drawn, failed: running.failed }
}
