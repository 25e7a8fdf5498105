import { InvalidInput } from '../base/errors.ts'
import { jsonPath } from '../base/issues.ts'
import { afterReadyInput } from '../base/time.ts'
import type { Database, MockState, StagedRecord } from '../model/database.ts'
import type { Dataset, Seed } from '../model/dataset.ts'
import type { UserRecord } from '../model/records.ts'
import type { ResolvedMockApiOptions } from '../options/mock-api-options.ts'
import type { RuleContext } from '../rules/context.ts'
import { statePieces } from './state-pieces.ts'
import type { Transactions } from './transactions.ts'

/**
 * How many users (with their progress and certificates) a creation stores in one turn of the
 * queue: small enough that another caller waits for one slice at most (see
 * docs/decisions/large-organisations-in-slices.md).
 */
const usersPerSlice = 250

/** Records stored in one turn: users' records of an organisation's start, or its start record. */
type Slice = Partial<MockState>

/**
 * Paces the steps of the creations under way: one at a time, each on a turn of the event loop of
 * its own, and after each a rest as long as the step took, so that whatever the number of
 * creations they take at most about half of the event loop, the requests that arrived meanwhile
 * read and answered in the other half (an HTTP request needs several turns: accepted, read,
 * answered). Ten creations each awaiting its own next turn would otherwise run ten steps back to
 * back between two reads of the sockets.
 *
 * @example const pace = new Pace(); const slice = await pace.step(() => nextSlice())
 */
export class Pace {
  #last: Promise<unknown> = Promise.resolve()

  /** Runs `work` as the next step, once the step before it and its rest are over. */
  step<T>(work: () => T | Promise<T>): Promise<T> {
    let took = 0
    const run = this.#last.then(async () => {
      await new Promise<void>((resolve) => afterReadyInput(resolve))
      const started = performance.now()
      try {
        return await work()
      } finally {
        took = performance.now() - started
      }
    })
    // A step of under a millisecond (a small organisation's) rests for none: a timer would.
    const rest = () =>
      new Promise<void>((resolve) => (took < 1 ? resolve() : setTimeout(resolve, took)))
    this.#last = run.then(rest, rest)
    return run
  }
}

/**
 * What `seed` builds from `options`, in its steps if it has them (`Seed.steps`), each a step of
 * `pace`: a large organisation's fixtures built while the mock answers other calls.
 */
export async function seedInSteps(
  pace: Pace,
  seed: Seed,
  options: ResolvedMockApiOptions,
): Promise<Dataset> {
  const { steps } = seed
  if (!steps) return pace.step(() => seed(options))
  const built = steps(options)
  for (;;) {
    const step = await pace.step(() => built.next())
    if (step.done) return step.value
  }
}

/** The JSON of `state`, built a piece at a time (see `statePieces`), each a step of `pace`. */
export async function jsonInSteps(pace: Pace, state: MockState): Promise<string> {
  let json = ''
  const pieces = statePieces(state)
  for (;;) {
    const piece = await pace.step(() => pieces.next())
    if (piece.done) return json
    json += piece.value
  }
}

/**
 * An organisation's start split: its users' records in slices of {@link usersPerSlice} users,
 * and the rest (the organisation, its key, groups, paths and settings), stored in one turn.
 *
 * @example const { slices, rest } = slicesOf(start)
 */
export function slicesOf(start: MockState): { slices: Slice[]; rest: MockState } {
  // The users' own records: the collections whose records a user has many of.
  const progress = byUser(start.learningProgress)
  const certificates = byUser(start.certificates)
  const slices: Slice[] = []
  for (let at = 0; at < start.users.length; at += usersPerSlice) {
    const users = start.users.slice(at, at + usersPerSlice)
    slices.push({
      users,
      learningProgress: users.flatMap((u) => progress.get(u.userId) ?? []),
      certificates: users.flatMap((u) => certificates.get(u.userId) ?? []),
    })
  }
  return { slices, rest: { ...start, users: [], learningProgress: [], certificates: [] } }
}

/** `records` by their `userId`. */
function byUser<R extends { userId: string }>(records: readonly R[]): Map<string, R[]> {
  const byId = new Map<string, R[]>()
  for (const record of records) {
    const list = byId.get(record.userId)
    if (list) list.push(record)
    else byId.set(record.userId, [record])
  }
  return byId
}

/** What {@link stageInSlices} stored, and in which records (a reset of the whole mock replaces them). */
export interface Staged {
  db: Database
  records: StagedRecord[]
  /** The users staged: what the last turn checks are still stored. */
  users: UserRecord[]
}

/**
 * Stores `slices` one per turn of the queue, outside the change log (see `Database.stage`), each
 * a step of `pace` so that the requests that arrived meanwhile take their turn first. Each turn
 * first runs `check` (which throws to stop) and refuses a `userId` another user has, and ends
 * telling `stored` how many users are stored so far. When a reset of the whole mock replaced the
 * records meanwhile, it starts again in the new ones; when it fails, it removes what it stored.
 * The caller claims the records in its last turn (`Database.claim`) or removes them
 * (`Database.unstage`).
 */
export async function stageInSlices(
  pace: Pace,
  transactions: Transactions,
  slices: readonly Slice[],
  check: (ctx: RuleContext) => void,
  stored: (users: number) => void = () => {},
): Promise<Staged> {
  let staged: Staged = { db: transactions.ctx.db, records: [], users: [] }
  let next = 0
  try {
    while (next < slices.length) {
      await pace.step(() =>
        transactions.exclusive(async () => {
          const { ctx } = transactions
          if (ctx.db !== staged.db) {
            // A reset of the whole mock: what was stored went with the records it replaced.
            staged = { db: ctx.db, records: [], users: [] }
            next = 0
            stored(0)
          }
          check(ctx)
          const slice = slices[next] as Slice
          slice.users?.forEach((user, i) => {
            if (ctx.db.usersByUserId.get(user.userId) === undefined) return
            const at = next * usersPerSlice + i
            throw new InvalidInput(
              `Invalid request parameters: ${jsonPath(['users', at, 'userId'])}: another user has this userId`,
            )
          })
          const records = await ctx.db.stage(slice)
          staged.records.push(...records)
          for (const { collection, record } of records) {
            if (collection === 'users') staged.users.push(record as UserRecord)
          }
          next++
          stored(staged.users.length)
        }),
      )
    }
  } catch (error) {
    await unstage(transactions, staged)
    throw error
  }
  return staged
}

/** Removes what {@link stageInSlices} stored, in a turn of the queue, if its records are still the mock's. */
export async function unstage(transactions: Transactions, staged: Staged): Promise<void> {
  await transactions.exclusive(async () => {
    if (transactions.ctx.db === staged.db) await staged.db.unstage(staged.records)
  })
}

/** Whether every user {@link stageInSlices} stored is still stored (no control deleted one meanwhile). */
export function stillStaged(ctx: RuleContext, staged: Staged): boolean {
  return staged.users.every((user) => ctx.db.users.get(user.orgId, user.id) === user)
}
