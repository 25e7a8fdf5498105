import { ApiError } from '../base/errors.ts'
import { hashSecret } from '../base/secrets.ts'
import { afterReadyInput } from '../base/time.ts'
import { Database, type MockState, type PendingChanges } from '../model/database.ts'
import type { Credentials, Dataset } from '../model/dataset.ts'
import type { ResolvedMockApiOptions } from '../options/mock-api-options.ts'
import { type RuleContext, withDatabase } from '../rules/context.ts'

/**
 * Where a mock keeps its records beyond the process: the standalone server's `--state-file`.
 * Each method runs inside the operation it serves, before that operation's answer is released.
 */
export interface StateStore {
  /**
   * The records and credentials to start from, given the seed (built when first called: a store
   * that holds records needs it only to add an organisation), the keys the seed gives in clear, and
   * the organisations the options add (to apply on top of records kept from before).
   */
  open(
    seeded: () => Dataset,
    keys: readonly Credentials[],
    organisations: ResolvedMockApiOptions['organisations'],
  ): Dataset
  /**
   * Makes one operation's changes durable, all or none, or throws: the operation then answers
   * 500 (or the status of the `ApiError` thrown: 503 from a state file that stopped taking writes)
   * and its changes are taken back in memory too.
   */
  commit(writes: PendingChanges['writes']): void
  /**
   * Makes the changes of several operations durable, in the order they ran, as one transaction,
   * all or none, or throws: every one of them then answers as `commit` says and is taken back in
   * memory, the latest first (group commit). A store without it is given their writes in one
   * `commit`.
   */
  commitGroup?(operations: readonly PendingChanges['writes'][]): void
  /** Replaces every stored record with `state`: after a reset. */
  replace(state: MockState): void
}

/** The most operations whose changes are committed to a store as one group. */
const maxGroup = 64

/** What an API call kept in the open group waits for: its group's commit (see `#join`). */
interface Joined {
  committed: Promise<void>
}

/** An API call held in the open group: its changes kept in memory, its answer not released. */
interface Held {
  writes: PendingChanges['writes']
  committed(): void
  failed(error: unknown): void
}

/**
 * The records and the one queue every operation on them takes its turn in: an operation runs
 * alone, and what it changed is kept (in the store too, if any) or taken back as a whole.
 *
 * With a store, the API calls that run one after another while nothing else does form a group:
 * each runs in its turn, its changes kept in memory, its answer held; the group is committed in
 * one transaction once no call is waiting for its turn (at the end of the event loop's turn that
 * ran them, or at {@link maxGroup} calls), and only then are the answers released, in order.
 * Everything else (a reset, a transaction, a read) first commits the open group.
 *
 * @example
 * const count = await transactions.transact((ctx) => ctx.db.users.size)
 */
export class Transactions {
  #ctx: RuleContext
  #tail: Promise<unknown> = Promise.resolve()
  readonly #store: StateStore | undefined
  readonly #maxStateBytes: number
  /** The API calls whose changes wait for one commit, oldest first. */
  #group: Held[] = []
  /** Whether a turn that commits the open group is on its way. */
  #commitQueued = false

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
   * Runs `task` after every task queued before it has finished, and after the open group of API
   * calls is committed (see {@link call}). Identify awaits `@msw/data`'s async `create`;
   * serialising the operations keeps each one atomic (two identify calls for one new id create one
   * user) without a lock per record.
   */
  exclusive<T>(task: () => Promise<T>): Promise<T> {
    return this.#turn(async () => {
      await this.#commitGroup()
      return task()
    })
  }

  /**
   * Runs an API call: `decide` in its turn, then its changes kept as {@link settle} keeps them,
   * except that with a store the call joins the open group and its turn ends at once; its answer
   * comes back once the group is committed. When `decide` fails, or its changes cannot be kept
   * (past `maxStateBytes`, or the group's commit failed), they are taken back and the promise
   * rejects with why.
   */
  async call<T>(decide: () => T | Promise<T>): Promise<T> {
    const { result, joined } = await this.#turn(async () => {
      let result: T
      let pending: PendingChanges | undefined
      try {
        result = await decide()
        pending = this.#measure()
      } catch (error) {
        // A call refused changes nothing: its rule checks before it writes, and whatever a
        // failure left half done is taken back.
        await this.#ctx.db.undo()
        throw error
      }
      if (pending === undefined) return { result }
      if (this.#store === undefined) {
        this.#ctx.db.accept(pending)
        return { result }
      }
      return { result, joined: await this.#join(pending) }
    })
    if (joined) await joined.committed
    return result
  }

  /** Runs `task` once every task queued before it has settled. */
  #turn<T>(task: () => Promise<T>): Promise<T> {
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
    let pending: PendingChanges | undefined
    try {
      pending = this.#measure()
      if (pending) this.#store?.commit(pending.writes)
    } catch (error) {
      await db.undo()
      throw error
    }
    if (pending) db.accept(pending)
  }

  /**
   * The changes of the operation just run, measured; `undefined` when there are none. Throws (a
   * 500) when they would pass `maxStateBytes`: the caller takes them back.
   */
  #measure(): PendingChanges | undefined {
    const { db } = this.#ctx
    const pending = db.pending(this.#store !== undefined)
    if (pending.sizes.size === 0) return undefined
    const limit = this.#maxStateBytes
    if (pending.bytes > limit && pending.bytes > db.bytes) {
      this.#ctx.warn(
        `a call was refused: it would take the state to ${pending.bytes} characters of JSON, past its limit of ${limit} (raise it with maxStateBytes or --max-state-bytes)`,
      )
      throw new ApiError('internal')
    }
    return pending
  }

  /**
   * Keeps the changes of an API call in the open group of a store, and gives what settles once the
   * group is committed (after that group's commit when it is full).
   */
  async #join(pending: PendingChanges): Promise<Joined> {
    const { db } = this.#ctx
    db.hold(pending)
    const committed = new Promise<void>((resolve, reject) => {
      this.#group.push({ writes: pending.writes, committed: resolve, failed: reject })
    })
    // Awaited by the call once its turn ends: not an unhandled rejection before that.
    committed.catch(() => undefined)
    if (this.#group.length >= maxGroup) await this.#commitGroup()
    else if (!this.#commitQueued) {
      this.#commitQueued = true
      // After the calls that arrived with this one have had their turn: no wait when idle.
      afterReadyInput(() => {
        void this.exclusive(async () => {
          this.#commitQueued = false
        })
      })
    }
    return { committed }
  }

  /**
   * Commits the changes of the open group as one transaction and releases its calls; or, when
   * the store cannot write them, takes them all back, the latest first, and fails each call.
   */
  async #commitGroup(): Promise<void> {
    const group = this.#group
    if (group.length === 0) return
    this.#group = []
    const store = this.#store as StateStore
    const { db } = this.#ctx
    try {
      const operations = group.map((held) => held.writes)
      if (store.commitGroup) store.commitGroup(operations)
      else store.commit(operations.flat())
    } catch (error) {
      await db.undoHeld()
      for (const held of group) held.failed(error)
      return
    }
    db.confirm()
    for (const held of group) held.committed()
  }

  /**
   * Replaces the records with `state`, as {@link Database.load} stores them (`owns`: the caller
   * keeps no reference to `state`). The keys of `credentials` are held in clear: the journal's
   * redaction learns them.
   */
  async load(
    state: MockState,
    credentials: readonly Credentials[],
    options?: { owns?: boolean },
  ): Promise<void> {
    const db = new Database()
    await db.load(state, options)
    for (const key of credentials.flatMap((c) => c.apiKeys)) {
      db.secretFingerprints.add(key, hashSecret(key))
    }
    this.#ctx = withDatabase(this.#ctx, db)
  }
}
