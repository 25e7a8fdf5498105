import { ApiError } from '../base/errors.ts'
import { hashSecret } from '../base/secrets.ts'
import { Database, type MockState, type PendingChanges } from '../model/database.ts'
import type { Credentials, Dataset } from '../model/dataset.ts'
import type { ResolvedMockApiOptions } from '../options/mock-api-options.ts'
import type { RuleContext } from '../rules/context.ts'

/**
 * Where a mock keeps its records beyond the process: the standalone server's `--state-file`.
 * Each method runs inside the operation it serves, before that operation's answer is released.
 */
export interface StateStore {
  /**
   * The records and credentials to start from, given the seeded ones and the organisations the
   * options add (to apply on top of records kept from before).
   */
  open(seeded: Dataset, organisations: ResolvedMockApiOptions['organisations']): Dataset
  /**
   * Makes one operation's changes durable, all or none, or throws: the operation then answers
   * 500 and its changes are taken back in memory too.
   */
  commit(writes: PendingChanges['writes']): void
  /** Replaces every stored record with `state`: after a reset. */
  replace(state: MockState): void
}

/**
 * The records and the one queue every operation on them takes its turn in: an operation runs
 * alone, and what it changed is kept (in the store too, if any) or taken back as a whole.
 *
 * @example
 * const count = await transactions.transact((ctx) => ctx.db.users.size)
 */
export class Transactions {
  #ctx: RuleContext
  #tail: Promise<unknown> = Promise.resolve()
  readonly #store: StateStore | undefined
  readonly #maxStateBytes: number

  constructor(ctx: RuleContext, maxStateBytes: number, store?: StateStore) {
    this.#ctx = ctx
    this.#maxStateBytes = maxStateBytes
    this.#store = store
  }

  /** The rules' context over the records of the moment: a reset replaces it. */
  get ctx(): RuleContext {
    return this.#ctx
  }

  /** The store the records are kept in beyond the process, if any. */
  get store(): StateStore | undefined {
    return this.#store
  }

  /**
   * Runs `task` after every task queued before it has finished. Identify awaits `@msw/data`'s
   * async `create`; serialising the operations keeps each one atomic (two identify calls for one
   * new id create one user) without a lock per record.
   */
  exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#tail.then(task)
    this.#tail = run.catch(() => undefined)
    return run
  }

  /**
   * Runs `task` over the records between two operations, and keeps what it changed as an API
   * call's changes are kept; a task that throws changes nothing.
   */
  async transact<T>(task: (ctx: RuleContext) => T | Promise<T>): Promise<T> {
    return this.exclusive(async () => {
      let result: T
      try {
        result = await task(this.#ctx)
      } catch (error) {
        // A task that fails changes nothing, like a refused call.
        await this.#ctx.db.undo()
        throw error
      }
      await this.settle()
      return result
    })
  }

  /**
   * Keeps the changes of the operation just run, written to the store if any; or, when they would
   * pass `maxStateBytes` or the store cannot write them, takes them back and throws (a 500).
   */
  async settle(): Promise<void> {
    const { db } = this.#ctx
    const pending = db.pending()
    if (pending.writes.length === 0) return
    try {
      const limit = this.#maxStateBytes
      if (pending.bytes > limit && pending.bytes > db.bytes) {
        this.#ctx.warn(
          `a call was refused: it would take the state to ${pending.bytes} characters of JSON, past its limit of ${limit} (raise it with maxStateBytes or --max-state-bytes)`,
        )
        throw new ApiError('internal')
      }
      this.#store?.commit(pending.writes)
    } catch (error) {
      await db.undo()
      throw error
    }
    db.accept(pending)
  }

  /**
   * Replaces the records with `state`, each validated by `@msw/data` with its schema. The keys of
   * `credentials` are held in clear: the journal's redaction learns them.
   */
  async load(state: MockState, credentials: readonly Credentials[]): Promise<void> {
    const db = new Database()
    await db.load(state)
    for (const key of credentials.flatMap((c) => c.apiKeys)) {
      db.secretFingerprints.add(key, hashSecret(key))
    }
    this.#ctx = { ...this.#ctx, db }
  }
}
