/**
 * The standalone server in a process of its own, for tests that measure what it holds: forked
 * with `startServer`'s options as JSON in its first argument, it answers each IPC message with its
 * heap and RSS after V8's memory-reducing collection (`last-resort`, which gives the pages it frees
 * back to the system, as the server's own release after a reset does).
 */
import { fork } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'

/** A server process: its URL, its memory on request, and its end. */
export interface ServerProcess {
  url: string
  memory(): Promise<{ heapUsed: number; rss: number }>
  stop(): Promise<void>
}

/** Starts the server with `options` in a process of its own. */
export async function startServerProcess(options: object = {}): Promise<ServerProcess> {
  const child = fork(fileURLToPath(import.meta.url), [JSON.stringify(options)], {
    execArgv: ['--expose-gc'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  const [ready] = (await once(child, 'message')) as [{ url: string }]
  return {
    url: ready.url,
    memory: async () => {
      child.send('memory')
      const [memory] = (await once(child, 'message')) as [{ heapUsed: number; rss: number }]
      return memory
    },
    stop: async () => {
      const exited = once(child, 'exit')
      child.kill('SIGKILL')
      await exited
    },
  }
}

if (process.send && process.argv[2] !== undefined) {
  const { startServer } = await import('../../src/server/server.ts')
  const server = await startServer({ port: 0, ...JSON.parse(process.argv[2]) })
  const gc = (globalThis as { gc?: (options: object) => Promise<void> }).gc
  process.on('message', async () => {
    for (let i = 0; i < 2; i++) {
      await gc?.({ type: 'major', execution: 'async', flavor: 'last-resort' })
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    const { heapUsed, rss } = process.memoryUsage()
    process.send?.({ heapUsed, rss })
  })
  process.send({ url: server.url })
}
