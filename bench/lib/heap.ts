/**
 * Collects garbage (the process must run with `--expose-gc`) and reports the memory left: three
 * collections a turn of the event loop apart, so that finalizers and weak references are settled.
 */
export async function memoryAfterGc(): Promise<{ heapUsed: number; rss: number }> {
  const gc = (globalThis as { gc?: () => void }).gc
  if (!gc) throw new Error('run with --expose-gc')
  for (let i = 0; i < 3; i++) {
    gc()
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  const { heapUsed, rss } = process.memoryUsage()
  return { heapUsed, rss }
}
