import { benchKey, identifyUpdates, load } from './http-load.ts'
import { type Memory, send, startMockServer } from './processes.ts'

export interface SustainedResult {
  /** 200 answers per second in each window, in order. */
  windows: number[]
  windowSeconds: number
  failures: number
  /** The server's memory at the end, after garbage collection (and its peak RSS). */
  end: Memory
  /** Sign-in tokens the server holds at the end. */
  liveTokens: number
}

/**
 * Identify at full speed (autocannon, 10 connections, one user updated over and over, as in the
 * issue's 40 s run) against a standalone server with the default options (a token lives 300 s,
 * 10 kept per user), warmed up by 5,000 calls, for `seconds`, in back-to-back windows of `windowSeconds`: whether the
 * throughput holds over time, the memory at the end and how many tokens are live then.
 *
 * @example
 * const { windows, end, liveTokens } = await sustainedIdentify(60, 10)
 */
export async function sustainedIdentify(
  seconds: number,
  windowSeconds: number,
): Promise<SustainedResult> {
  const server = await startMockServer({
    seededOrganisations: 0,
    organisations: [{ orgId: 'X', apiKeys: [benchKey], users: 1000 }],
  })
  try {
    const target = identifyUpdates(server.url, benchKey, 'X', 'sustained-user')
    // Warmed up first, so that the first window measures the server and not its compiler.
    await load({ ...target, amount: 5_000 })
    const windows: number[] = []
    let failures = 0
    for (let elapsed = 0; elapsed < seconds; elapsed += windowSeconds) {
      const result = await load({ ...target, duration: windowSeconds })
      windows.push(result.okPerSecond)
      failures += result.failures
    }
    const end = await server.memory()
    const state = await send({ url: `${server.url}/__mock/state` })
    const liveTokens = (JSON.parse(state.body) as { signInTokens: unknown[] }).signInTokens.length
    return { windows, windowSeconds, failures, end, liveTokens }
  } finally {
    await server.stop()
  }
}
