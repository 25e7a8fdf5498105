import { expect, it } from 'vitest'
import { runCli, waitForOutput } from '../support/cli-process.ts'

/**
 * Bound to every interface (as in a container), the banner shows an address that answers there,
 * and says that from outside a container the address is the one the engine publishes: the
 * banner used to print `http://0.0.0.0:4010`, wrong wherever the port is published elsewhere.
 */
it('shows the loopback address and says the published one is the engine’s', async () => {
  const cli = runCli(['serve', '--port', '0', '--host', '0.0.0.0'])
  try {
    const [, url = '', port = ''] = await waitForOutput(
      cli,
      /listening on (http:\/\/127\.0\.0\.1:(\d+)) \(every interface, port \d+\)\n/,
    )
    expect(cli.stdout()).toContain(
      `the engine publishes ${port} on (docker port <container> ${port})`,
    )
    expect(cli.stdout()).not.toContain('0.0.0.0')
    expect((await fetch(`${url}/__mock/health`)).status).toBe(200)
  } finally {
    cli.child.kill('SIGKILL')
  }
}, 30_000)
