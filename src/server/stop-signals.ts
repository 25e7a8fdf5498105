/**
 * Imported first by the CLI, so that SIGTERM and SIGINT stop it from its first instruction. A
 * process other than PID 1 needs nothing for that until the server listens: with no handler the
 * kernel ends it at once, even while a large start-up keeps the event loop busy. PID 1 (the
 * server in a container) is different: the kernel drops a signal it has no handler for, so an
 * engine's stop during start-up would wait out its grace period and kill. PID 1 gets a handler
 * here, which ends the process at once (as soon as the event loop turns: loading the records
 * lets it turn every 2,048 records; `docker run --init` makes even that immediate).
 * {@link onStopSignal} later replaces it with the server's own stop.
 */
let stop: () => void = () => process.exit(0)

if (process.pid === 1) {
  process.once('SIGTERM', () => stop())
  process.once('SIGINT', () => stop())
}

/**
 * Makes SIGTERM and SIGINT run `handler` (once) instead of ending the process at once.
 *
 * @example onStopSignal(() => running.close().then(() => process.exit(0)))
 */
export function onStopSignal(handler: () => void): void {
  stop = handler
  if (process.pid !== 1) {
    process.once('SIGTERM', handler)
    process.once('SIGINT', handler)
  }
}
