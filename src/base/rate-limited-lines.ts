/** The most kinds of line a window writes; the lines of any further kind are counted together. */
const maxKinds = 20

/**
 * `write`, at most once a window (a second) for each kind of line, with a count of what it left
 * out: a flood of refused calls or of failed commits wrote a line each (6,431 lines in 3 s). A
 * kind is the message with its numbers taken out. The first line of a kind in a window is written
 * at once; the others are counted, and when the window ends one line says how many were left out,
 * quoting the last of them.
 *
 * @example
 * const warn = rateLimitedLines((line) => console.error(`identify-api-mock: ${line}`))
 * warn('a call was refused: …') // written; the same within a second is counted
 */
export function rateLimitedLines(
  write: (line: string) => void,
  windowMs = 1000,
): (line: string) => void {
  /** The kinds written in this window, and what each left out since. */
  const kinds = new Map<string, { count: number; last: string }>()
  let timer: ReturnType<typeof setTimeout> | undefined
  const endWindow = () => {
    timer = undefined
    for (const { count, last } of kinds.values()) {
      if (count > 0) write(`${last} (and ${count} more like it left out in the last second)`)
    }
    kinds.clear()
  }
  return (line) => {
    let kind = line.replace(/\d+/g, '#')
    if (!kinds.has(kind) && kinds.size >= maxKinds) kind = ''
    const seen = kinds.get(kind)
    if (seen) {
      seen.count++
      seen.last = line
    } else {
      kinds.set(kind, { count: 0, last: line })
      write(line)
    }
    if (timer === undefined) {
      timer = setTimeout(endWindow, windowMs)
      // A line left out never keeps a process alive: it is lost with it.
      ;(timer as { unref?: () => void }).unref?.()
    }
  }
}
