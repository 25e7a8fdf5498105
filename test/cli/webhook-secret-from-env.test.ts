import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { generateWebhookSecret } from '../../src/webhooks/signature.ts'
import { runCli, waitForOutput } from '../support/cli-process.ts'
import { type LocalReceiver, startReceiver } from '../support/webhook-delivery.ts'

let receiver: LocalReceiver
beforeAll(async () => {
  receiver = await startReceiver()
})
afterAll(() => receiver.close())

describe('serve --webhook-secret', () => {
  it('is read from IDENTIFY_API_MOCK_WEBHOOK_SECRET, so the secret need not be in ps', async () => {
    const secret = generateWebhookSecret()
    process.env.IDENTIFY_API_MOCK_WEBHOOK_SECRET = secret
    const cli = runCli(['serve', '--port', '0', '--json', '--webhook-url', receiver.url])
    delete process.env.IDENTIFY_API_MOCK_WEBHOOK_SECRET
    try {
      await waitForOutput(cli, /\n/)
      const facts = JSON.parse(cli.stdout().trim())
      expect(facts.webhooks).toEqual([
        { id: expect.stringMatching(/^ep_/), url: receiver.url, secret, events: null },
      ])
    } finally {
      cli.child.kill('SIGKILL')
    }
  }, 30_000)
})

describe('IDENTIFY_API_MOCK_WEBHOOK_SECRET without a --webhook-url', () => {
  it('is no error: the server starts without webhooks', async () => {
    process.env.IDENTIFY_API_MOCK_WEBHOOK_SECRET = generateWebhookSecret()
    const cli = runCli(['serve', '--port', '0', '--json'])
    delete process.env.IDENTIFY_API_MOCK_WEBHOOK_SECRET
    try {
      await waitForOutput(cli, /\n/)
      expect(JSON.parse(cli.stdout().trim()).webhooks).toEqual([])
    } finally {
      cli.child.kill('SIGKILL')
    }
  }, 30_000)
})
