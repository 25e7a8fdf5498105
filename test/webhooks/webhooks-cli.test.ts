import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { generateWebhookSecret } from '../../src/webhooks/signature.ts'
import { expectRefusal, runCli, startCli, waitForOutput } from '../support/cli-process.ts'
import {
  expectSignedDelivery,
  type LocalReceiver,
  startReceiver,
} from '../support/webhook-delivery.ts'

/** `serve --webhook-url …` as a process: the secrets it prints sign what it delivers. */

let receiver: LocalReceiver
beforeAll(async () => {
  receiver = await startReceiver()
})
afterAll(() => receiver.close())

async function raise(url: string) {
  const res = await fetch(`${url}/__mock/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ type: 'cli.test', data: { n: 1 } }),
  })
  expect(res.status).toBe(202)
  return (await res.json()) as { id: string }
}

async function deliveryOf(id: string) {
  for (;;) {
    const delivery = receiver.received.find((d) => d.headers['svix-id'] === id)
    if (delivery) return delivery
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

describe('identify-api-mock serve --webhook-url', () => {
  it('prints a generated secret per endpoint in the banner, and signs with it', async () => {
    const other = `${receiver.url}/second`
    const { cli, url } = await startCli(['--webhook-url', receiver.url, '--webhook-url', other])
    try {
      await waitForOutput(cli, /Stop with Ctrl\+C/)
      const lines = [...cli.stdout().matchAll(/^ {2}(ep_\w+) {2}(\S+) {2}(whsec_\S+)$/gm)]
      expect(lines.map((m) => m[2])).toEqual([receiver.url, other])
      expect(new Set(lines.map((m) => m[3])).size).toBe(2)
      const event = await raise(url)
      const delivery = await deliveryOf(event.id)
      expectSignedDelivery(delivery, lines[0]?.[3] ?? '')
    } finally {
      cli.child.kill('SIGKILL')
    }
  }, 30_000)

  it('uses --webhook-secret for every endpoint, prints it in the --json line, and retries on --webhook-retry-schedule', async () => {
    const secret = generateWebhookSecret()
    const cli = runCli([
      'serve',
      '--port',
      '0',
      '--json',
      '--webhook-url',
      receiver.url,
      '--webhook-secret',
      secret,
      '--webhook-retry-schedule',
      '30',
    ])
    try {
      await waitForOutput(cli, /\n/)
      const facts = JSON.parse(cli.stdout().trim())
      expect(facts.webhooks).toEqual([
        { id: expect.stringMatching(/^ep_/), url: receiver.url, secret, events: null },
      ])
      receiver.answers = [500]
      const event = await raise(facts.url)
      await deliveryOf(event.id)
      for (;;) {
        const attempts = receiver.received.filter((d) => d.headers['svix-id'] === event.id)
        if (attempts.length === 2) {
          for (const attempt of attempts) expectSignedDelivery(attempt, secret)
          expect(
            (attempts[1]?.receivedAt ?? 0) - (attempts[0]?.receivedAt ?? 0),
          ).toBeGreaterThanOrEqual(29)
          break
        }
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
    } finally {
      cli.child.kill('SIGKILL')
    }
  }, 30_000)
})

describe('serve --webhook-… refusals', () => {
  it('refuses a bad URL, a bad secret, a secret without a URL and a bad schedule', async () => {
    await expectRefusal(
      ['serve', '--port', '0', '--webhook-url', 'ftp://x.test'],
      /Invalid options: webhooks\[0\]\.url: expected an http: or https: URL/,
    )
    await expectRefusal(
      ['serve', '--port', '0', '--webhook-url', receiver.url, '--webhook-secret', 'nope'],
      /webhooks\[0\]\.secret: expected whsec_/,
    )
    await expectRefusal(
      ['serve', '--port', '0', '--webhook-secret', generateWebhookSecret()],
      /--webhook-secret needs at least one --webhook-url/,
    )
    await expectRefusal(
      ['serve', '--port', '0', '--webhook-retry-schedule', '10,x'],
      /expected whole numbers of milliseconds/,
    )
  }, 60_000)
})
