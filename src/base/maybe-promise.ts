/**
 * A value, or a promise of it: what a step of the mock's path returns when it answers at once
 * unless something makes it wait (a body still arriving, a store's commit, an asynchronous
 * `create`). Each promise a call goes through costs it a turn of the microtask queue and an
 * allocation; a call that waits for nothing takes none.
 */
export type MaybePromise<T> = T | Promise<T>

/**
 * `next` applied to `value`: at once when `value` is at hand, once it resolves otherwise (a
 * rejection passes through).
 *
 * @example andThen(readBody(), (body) => parse(body)) // parsed at once when the body was at hand
 */
export function andThen<T, U>(
  value: MaybePromise<T>,
  next: (value: T) => MaybePromise<U>,
): MaybePromise<U> {
  return value instanceof Promise ? value.then(next) : next(value)
}

/**
 * What `run` gives, or `recover`'s answer to its failure, whether `run` throws or its promise
 * rejects: at once when `run` answers at once.
 *
 * @example orElse(() => answer(request), toErrorResponse) // an error response, never a throw
 */
export function orElse<T>(
  run: () => MaybePromise<T>,
  recover: (error: unknown) => MaybePromise<T>,
): MaybePromise<T> {
  try {
    const value = run()
    return value instanceof Promise ? value.catch(recover) : value
  } catch (error) {
    return recover(error)
  }
}
