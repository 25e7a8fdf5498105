/** The mock's clock: every timestamp it stores or compares comes from it. */
export type Clock = () => Date

export const systemClock: Clock = () => new Date()

/** `2025-08-14T15:12:34+00:00`: ISO 8601 to the second, with an explicit offset. */
export function formatDateTime(date: Date): string {
  return `${date.toISOString().slice(0, 19)}+00:00`
}

/** `2025-08-14`. */
export function formatDate(date: Date): string {
  return date.toISOString().slice(0, 10)
}

/** Resolves after `ms` milliseconds; at once for 0. */
export function sleep(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve()
}

/**
 * Runs `task` once the event loop has handled the input that is ready (a request, a signal):
 * Node's `setImmediate`, no timer. A page or a worker has none (web-standard APIs only in the
 * core): a timeout of 0 there.
 */
export const afterReadyInput: (task: () => void) => void =
  typeof setImmediate === 'function' ? setImmediate : (task) => setTimeout(task, 0)
