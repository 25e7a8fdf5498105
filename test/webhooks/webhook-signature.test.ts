import { Webhook } from 'svix'
import { describe, expect, it } from 'vitest'
import {
  generateWebhookId,
  generateWebhookSecret,
  signWebhook,
  webhookSecretKey,
} from '../../src/webhooks/signature.ts'

/** The isomorphic signing code, checked against the real `svix` package's own signer. */
describe('webhook signatures', () => {
  it('signs exactly as svix signs: v1,<base64 HMAC-SHA256 of id.timestamp.body>', () => {
    for (const body of ['{}', '{"object":"event","data":{"é":"ü ✓"}}', 'x'.repeat(10_000)]) {
      const secret = generateWebhookSecret()
      const key = webhookSecretKey(secret)
      if (!key) throw new Error('generated secret has no key')
      const id = generateWebhookId('msg')
      const at = new Date(1_762_423_138_000)
      expect(signWebhook(key, id, at.getTime() / 1000, body)).toBe(
        new Webhook(secret).sign(id, at, body),
      )
    }
  })

  it('generates secrets in Svix form (whsec_ and 24 random bytes) that svix accepts', () => {
    const secrets = Array.from({ length: 50 }, generateWebhookSecret)
    expect(new Set(secrets).size).toBe(50)
    for (const secret of secrets) {
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/)
      expect(webhookSecretKey(secret)).toHaveLength(24)
      expect(() => new Webhook(secret)).not.toThrow()
    }
  })

  it('reads a secret only as whsec_ and the standard base64 of 16 to 64 bytes', () => {
    const of = (bytes: number) => `whsec_${btoa('k'.repeat(bytes))}`
    expect(webhookSecretKey(of(16))).toHaveLength(16)
    expect(webhookSecretKey(of(64))).toHaveLength(64)
    for (const bad of [of(15), of(65), 'whsec_', 'whsec_!!!!', 'whsec_abc', btoa('k'.repeat(24))]) {
      expect(webhookSecretKey(bad), bad).toBeUndefined()
    }
  })

  it('makes message and endpoint ids in Svix shape, each new', () => {
    const ids = Array.from({ length: 200 }, () => generateWebhookId('msg'))
    expect(new Set(ids).size).toBe(200)
    for (const id of ids) expect(id).toMatch(/^msg_[0-9A-Za-z]{27}$/)
    expect(generateWebhookId('ep')).toMatch(/^ep_[0-9A-Za-z]{27}$/)
  })
})
