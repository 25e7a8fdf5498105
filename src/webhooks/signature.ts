import { hmac } from '@noble/hashes/hmac.js'
import { sha256 } from '@noble/hashes/sha2.js'

const secretPrefix = 'whsec_'
const encoder = new TextEncoder()

/** Standard base64 of `bytes` (what Svix's secrets and signatures use). */
function base64Of(bytes: Uint8Array): string {
  let binary = ''
  for (const byte of bytes) binary += String.fromCharCode(byte)
  return btoa(binary)
}

/** The bytes of standard base64 `text`; `undefined` when it is not base64. */
function bytesOfBase64(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) return undefined
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0))
}

/**
 * The signing key of a `whsec_<base64>` secret: its base64 part decoded, 16 to 64 bytes;
 * `undefined` for anything else.
 *
 * @example webhookSecretKey('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw') // 24 bytes
 */
export function webhookSecretKey(secret: string): Uint8Array | undefined {
  if (!secret.startsWith(secretPrefix)) return undefined
  const key = bytesOfBase64(secret.slice(secretPrefix.length))
  return key && key.length >= 16 && key.length <= 64 ? key : undefined
}

/**
 * A new endpoint secret in Svix's form: `whsec_` and the base64 of 24 bytes from the platform's
 * cryptographic random source.
 *
 * @example generateWebhookSecret() // 'whsec_…' (32 base64 characters)
 */
export function generateWebhookSecret(): string {
  return secretPrefix + base64Of(crypto.getRandomValues(new Uint8Array(24)))
}

/**
 * The `svix-signature` of one attempt: `v1,` and the base64 HMAC-SHA256 of
 * `<msgId>.<timestamp>.<body>`, keyed with the secret's decoded key.
 *
 * @example signWebhook(key, 'msg_2k…', 1762423138, '{"object":"event",…}') // 'v1,…'
 */
export function signWebhook(
  key: Uint8Array,
  msgId: string,
  timestamp: number,
  body: string,
): string {
  const mac = hmac(sha256, key, encoder.encode(`${msgId}.${timestamp}.${body}`))
  return `v1,${base64Of(mac)}`
}

const base62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

/**
 * A new id with `prefix`, in Svix's shape: `msg_` and 27 base62 characters from the
 * cryptographic random source.
 *
 * @example generateWebhookId('msg') // 'msg_p5jXN8AQM9LWM0D4loKWxJek…'
 */
export function generateWebhookId(prefix: 'msg' | 'ep'): string {
  // 248 is the largest multiple of 62 below 256: the bytes past it are drawn again, so every
  // character is equally likely.
  let id = ''
  while (id.length < 27) {
    for (const byte of crypto.getRandomValues(new Uint8Array(32))) {
      if (byte < 248 && id.length < 27) id += base62[byte % 62]
    }
  }
  return `${prefix}_${id}`
}
