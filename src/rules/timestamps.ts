import { formatDateTime } from '../base/time.ts'

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
 * token sweep reads the front token's expiry on every call, and it changes once a second.
 */
export function timestampMs(text: string): number {
  if (text !== lastParsed.text) lastParsed = { text, ms: Date.parse(text) }
  return lastParsed.ms
}

let lastParsed = { text: '', ms: Number.NaN }
