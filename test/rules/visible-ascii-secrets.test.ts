import { describe, expect, it } from 'vitest'
import { createMockApi } from '../../src/root/index.ts'
import { startServer } from '../../src/server/server.ts'
import { expectRefusal } from '../support/cli-process.ts'

/**
 * API keys and the control token are visible ASCII only (0x21 to 0x7E): a key an HTTP header
 * cannot carry as it is could never be sent, so it is refused where it is given.
 */

const unsendable = ['clé', 'sk test', 'tab\there', 'sk_\u00a0nbsp', 'emoji-🔑', 'del\u007f', '']

describe('createMockApi', () => {
  it('refuses an API key that is not visible ASCII with a TypeError naming it', () => {
    for (const key of unsendable) {
      expect(() => createMockApi({ organisations: [{ orgId: 'acme', apiKeys: [key] }] })).toThrow(
        new TypeError(
          'Invalid options: organisations[0].apiKeys[0]: must be visible ASCII only (0x21 to 0x7E), as an HTTP header carries it',
        ),
      )
    }
  })

  it('accepts every visible ASCII character', () => {
    const key = Array.from({ length: 0x7e - 0x21 + 1 }, (_, i) => String.fromCharCode(0x21 + i))
    const api = createMockApi({ organisations: [{ orgId: 'acme', apiKeys: [key.join('')] }] })
    expect(api.credentials.find((c) => c.orgId === 'acme')?.apiKeys).toEqual([key.join('')])
  })
})

describe('startServer', () => {
  it('refuses a control token that is not visible ASCII before listening', async () => {
    for (const controlToken of unsendable) {
      await expect(startServer({ port: 0, controlToken })).rejects.toThrow(
        /^Invalid control token: must be visible ASCII only/,
      )
    }
  })
})

describe('identify-api-mock serve', () => {
  it('exits 1 with one line for a non-ASCII --api-key or --control-token', async () => {
    await expectRefusal(
      ['serve', '--port', '0', '--org', 'acme', '--api-key', 'clé'],
      /^identify-api-mock: Invalid options: organisations\[0\]\.apiKeys\[0\]: must be visible ASCII only/,
    )
    await expectRefusal(
      ['serve', '--port', '0', '--control-token', 'tøken'],
      /^identify-api-mock: Invalid control token: must be visible ASCII only/,
    )
  }, 30_000)
})
