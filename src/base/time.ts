/** The mock's clock: every timestamp it stores or compares comes from it. */
export type Clock = () => Date

export const systemClock: Clock = () => new Date()

/** `2025-08-14T15:12:34+00:00`: ISO 8601 to the second, with an explicit offset. */
export function formatDateTime(date: Date): string {
  return `${date.toISOString().slice(0, 19)}+00:00`
}

/**
 * `2025-08-14T15:12:34.567+00:00`: ISO 8601 to the millisecond, with an explicit offset. What an
 * expiry is stamped with (a token's, a session's start), so that it is never rounded to the second:
 * a token valid for one second issued at .900 would have expired 100 ms later. Built on the second
 * {@link formatTimestamp} remembers (a `toISOString` costs about a microsecond, twice an identify).
 */
export function formatInstant(date: Date): string {
  const fraction = date.getTime() - Math.floor(date.getTime() / 1000) * 1000
  return `${formatTimestamp(date).slice(0, 19)}.${String(fraction).padStart(3, '0')}+00:00`
}

/**
 * `formatDateTime`, remembered for the last few seconds formatted. Every call of the API stamps
 * two or three times (now, a token's expiry, the journal) and `toISOString` costs more than the
 * rest of a stamp; within one second the text is the same, and sharing it keeps one string per
 * second rather than one per record.
 */
export function formatTimestamp(date: Date): string {
  const second = Math.floor(date.getTime() / 1000)
  for (const entry of recent) if (entry.second === second) return entry.text
  const text = formatDateTime(date)
  recent.unshift({ second, text })
  if (recent.length > recentLimit) recent.pop()
  return text
}

const recent: Array<{ second: number; text: string }> = []
const recentLimit = 4

/**
 * The instant a stamp of ours stands for, in milliseconds. Remembers the last text parsed: the
 * token sweep reads the front token's expiry on every call, and the expiry order each new token's,
 * and both change once a second (`Date.parse` costs a microsecond inside the server).
 */
export function timestampMs(text: string): number {
  if (text !== lastParsed.text) lastParsed = { text, ms: Date.parse(text) }
  return lastParsed.ms
}

let lastParsed = { text: '', ms: Number.NaN }

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
