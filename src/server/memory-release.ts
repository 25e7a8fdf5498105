import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

/**
 * How far the records kept (their JSON size, in characters) must fall from their highest since
 * the last release before the server gives the memory back: 32 MiB of JSON is about 55 MB of heap.
 */
export const releaseAfterBytes = 32 * 1024 * 1024

/** A collection of V8's `gc` extension; `last-resort` returns the pages it frees to the system. */
export type Collect = (options: {
  type: 'major'
  execution: 'async'
  flavor: 'last-resort'
}) => PromiseLike<void>

/**
 * Returns a check to run after each answer: once the records kept have fallen by
 * {@link releaseAfterBytes} from their highest (a reset of a large state, an organisation removed,
 * many users deleted), it asks V8 for a memory-reducing full collection, run after the answer,
 * and returns its promise.
 *
 * V8 collects as the program allocates, and a regular full collection keeps the pages it frees for
 * reuse: after a reset an idle server, or one answering a few small requests, kept the RSS of the
 * state it dropped (693 MB after a reset of a 300 MB state against 141 MB at start). Only the
 * collection V8 runs when memory is short (`flavor: 'last-resort'`) unmaps them.
 */
export function memoryReleaser(
  stateBytes: () => number,
  collect: () => Collect | undefined = reducingCollection,
): () => PromiseLike<void> | undefined {
  let highest = stateBytes()
  let gc: Collect | undefined | null
  return () => {
    const bytes = stateBytes()
    if (bytes > highest) highest = bytes
    if (highest - bytes < releaseAfterBytes) return undefined
    highest = bytes
    if (gc === undefined) gc = collect() ?? null
    return gc?.({ type: 'major', execution: 'async', flavor: 'last-resort' })
  }
}

/**
 * V8's `gc` function: the process's own when it runs with `--expose-gc`; otherwise that of a new
 * context created while the flag is set, so that `globalThis.gc` stays undefined and no later
 * context gets one (`undefined` if the runtime refuses). A V8 without the `last-resort` flavor
 * runs a regular full collection.
 */
function reducingCollection(): Collect | undefined {
  const own = (globalThis as { gc?: Collect }).gc
  if (own) return own
  try {
    setFlagsFromString('--expose-gc')
    return runInNewContext('typeof gc === "function" ? gc : undefined') as Collect | undefined
  } catch {
    return undefined
  } finally {
    setFlagsFromString('--no-expose-gc')
  }
}
