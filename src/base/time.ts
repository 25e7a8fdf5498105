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
 * The instant a stamp stands for, in milliseconds. The token sweep reads the front token's expiry
 * on every call, and the expiry order each new token's, and `Date.parse` costs a microsecond inside
 * the server: a stamp of ours ({@link formatTimestamp}'s, {@link formatInstant}'s) is read as its
 * second, parsed once while the second lasts, and its digits of milliseconds. Any other text (a
 * data file's own offset) is parsed.
 *
 * @example timestampMs('2025-08-14T15:12:34.567+00:00') // 1755184354567
 */
export function timestampMs(text: string): number {
  const fraction = millisecondsOf(text)
  if (fraction === undefined) return Date.parse(text)
  const second = text.slice(0, 19)
  if (second !== lastSecond.text) lastSecond = { text: second, ms: Date.parse(text) - fraction }
  return lastSecond.ms + fraction
}

let lastSecond = { text: '', ms: Number.NaN }

/** The milliseconds of a stamp of ours: 0 to the second, its three digits to the millisecond. */
function millisecondsOf(text: string): number | undefined {
  if (!text.endsWith('+00:00')) return undefined
  if (text.length === 25) return 0
  if (text.length !== 29 || text[19] !== '.') return undefined
  let ms = 0
  for (let at = 20; at < 23; at++) {
    const digit = text.charCodeAt(at) - 48
    if (digit < 0 || digit > 9) return undefined
    ms = ms * 10 + digit
  }
  return ms
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
 * Resolves after `ms` milliseconds with `false`, or with `true` as soon as `whenGone` says the
 * client has gone (see `IncomingRequest.whenGone`): no timer and no listener is left behind
 * either way.
 */
export function sleepUnlessGone(
  ms: number,
  whenGone: ((listener: () => void) => () => void) | undefined,
): Promise<boolean> {
  if (!whenGone) return sleep(ms).then(() => false)
  return new Promise((resolve) => {
    let timer: ReturnType<typeof setTimeout> | undefined
    let gone = false
    const stop = whenGone(() => {
      gone = true
      clearTimeout(timer)
      resolve(true)
    })
    if (gone) return
    timer = setTimeout(() => {
      stop()
      resolve(false)
    }, ms)
  })
}

/**
 * Runs `task` once the event loop has handled the input that is ready (a request, a signal):
 * Node's `setImmediate`, no timer. A page or a worker has none (web-standard APIs only in the
 * core): a timeout of 0 there.
 */
export const afterReadyInput: (task: () => void) => void =
  typeof setImmediate === 'function' ? setImmediate : (task) => setTimeout(task, 0)
