import { sha256 } from '@noble/hashes/sha2.js'
import * as z from 'zod'

/**
 * The hashes and tokens of the mock, as flat strings: `@noble/hashes`' `bytesToHex` builds its
 * hex by appending two characters at a time, and the engine keeps that as a chain of 32 string
 * pieces (about 1 KB) for as long as the stored record lives. Node's native hex is flat.
 */

const tokenBytes = 32
const tokensPerDraw = 256
const hexDigits = [...'0123456789abcdef'].map((c) => c.charCodeAt(0))
const encoder = new TextEncoder()

/**
 * Lowercase hex of `bytes`, as one flat string: the engine's own `Uint8Array#toHex` where it has
 * it (Node 25 and later; twice the speed), two characters a byte from a table elsewhere.
 */
export const hexOf: (bytes: Uint8Array) => string =
  typeof (Uint8Array.prototype as { toHex?: unknown }).toHex === 'function'
    ? (bytes) => (bytes as Uint8Array & { toHex(): string }).toHex()
    : hexFromTable

/**
 * {@link hexOf} for an engine without `Uint8Array#toHex` (Node 22 and 24, older browsers).
 *
 * @example hexFromTable(new Uint8Array([0, 255])) // '00ff'
 */
export function hexFromTable(bytes: Uint8Array): string {
  const codes = new Array<number>(bytes.length * 2)
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i] as number
    codes[2 * i] = hexDigits[byte >> 4] as number
    codes[2 * i + 1] = hexDigits[byte & 15] as number
  }
  return String.fromCharCode(...codes)
}

/**
 * SHA-256 of a string's UTF-8, as hex: Node's one-shot native `crypto.hash` where the platform
 * has it (Node, Deno, Bun: twenty times the speed of JavaScript), `@noble/hashes` elsewhere (a
 * browser page, which has only WebCrypto's asynchronous `digest`).
 */
const sha256Hex: (text: string) => string = (() => {
  const native = globalThis.process?.getBuiltinModule?.('node:crypto')
  if (typeof native?.hash === 'function') return (text) => native.hash('sha256', text, 'hex')
  // Holds a secret's UTF-8 while it is hashed: most secrets fit, and `encode` would allocate.
  const scratch = new Uint8Array(256)
  return (text) => {
    const { read, written } = encoder.encodeInto(text, scratch)
    const bytes = read === text.length ? scratch.subarray(0, written) : encoder.encode(text)
    const hex = hexOf(sha256(bytes))
    scratch.fill(0, 0, written)
    return hex
  }
})()

/**
 * The hash under which API keys, sign-in tokens and session ids are stored: SHA-256 of the
 * UTF-8, as hex. Synchronous, unlike WebCrypto's digest, so that authenticating a request costs no
 * extra turn of the event loop.
 */
export function hashSecret(secret: string): string {
  return sha256Hex(secret)
}

/**
 * `length` characters of `alphabet` (at most 256) drawn from the cryptographic random source,
 * each equally likely: bytes past the last whole multiple of the alphabet's size are drawn again.
 *
 * @example randomText('abc', 4) // 'cabb'
 */
export function randomText(alphabet: string, length: number): string {
  const limit = 256 - (256 % alphabet.length)
  let text = ''
  while (text.length < length) {
    for (const byte of crypto.getRandomValues(new Uint8Array(length))) {
      if (byte < limit && text.length < length) text += alphabet[byte % alphabet.length]
    }
  }
  return text
}

/**
 * The public prefix of an API key (`sk_test_…`): what a key of the mock starts with, and what a
 * client may leave out when it copies the secret part alone.
 */
export const publicKeyPrefix = 'sk_test_'

/**
 * The shortest secret part of a key, after its {@link publicKeyPrefix}, that the journal looks for
 * alone: 16 characters, never an ordinary word (a data file's `sk_test_acme` leaves `acme`, which
 * is not looked for: it would redact every `acme`).
 */
export const minBareKeyLength = 16

/**
 * The secret part of `key` after its {@link publicKeyPrefix}, when it has one and that part is
 * {@link minBareKeyLength} characters or more; `undefined` otherwise.
 *
 * @example bareKeyOf('sk_test_0123456789abcdefABCDEFGH') // '0123456789abcdefABCDEFGH'
 */
export function bareKeyOf(key: string): string | undefined {
  if (!key.startsWith(publicKeyPrefix)) return undefined
  const bare = key.slice(publicKeyPrefix.length)
  return bare.length >= minBareKeyLength ? bare : undefined
}

/**
 * The forms of the secrets the mock generates, each a pattern of the runs that may hold one and
 * the secret's length: sign-in tokens and web-view session ids (64 lowercase hex characters, see
 * {@link generateSignInToken}); the API keys of the seed and of organisations created at run time
 * (`sk_test_` and 24 letters and digits), and such a key's 24 letters and digits alone. What lets the journal find, inside a string, a secret the
 * mock holds only as its hash (one a state file kept, not seen in clear since the start).
 *
 * @example generatedSecretForms[0].pattern.test('a'.repeat(64)) // true
 */
export const generatedSecretForms: readonly {
  pattern: RegExp
  length: number
  /** What the secret starts with that the form leaves out: its piece is checked with it. */
  prefix?: string
}[] = [
  { pattern: /[0-9a-f]{64,}/g, length: 64 },
  { pattern: /sk_test_[A-Za-z0-9]{24}/g, length: 32 },
  // A generated key's secret part alone, its public prefix left out.
  { pattern: /[A-Za-z0-9]{24,}/g, length: 24, prefix: publicKeyPrefix },
]

/** A new sign-in token: 256 bits from the platform's cryptographic random source, as hex. */
export function generateSignInToken(): string {
  return hexOf(crypto.getRandomValues(new Uint8Array(tokenBytes)))
}

/**
 * New sign-in tokens, as {@link generateSignInToken} makes them, for the hot path: it draws the
 * bits for 256 tokens at once (one `getRandomValues` call costs as much as ten tokens' hex) and
 * wipes each token's bytes once used.
 */
export function createTokenSource(): () => string {
  const pool = new Uint8Array(tokenBytes * tokensPerDraw)
  let next = tokensPerDraw
  return () => {
    if (next === tokensPerDraw) {
      crypto.getRandomValues(pool)
      next = 0
    }
    const start = next++ * tokenBytes
    const bytes = pool.subarray(start, start + tokenBytes)
    const token = hexOf(bytes)
    bytes.fill(0)
    return token
  }
}

/**
 * Visible ASCII, 0x21 to 0x7E: the characters of every secret an HTTP header carries as it is.
 *
 * @example visibleAscii.test('sk_test_abc') // true; 'clé' and 'a b' are false
 */
export const visibleAscii = /^[\x21-\x7e]+$/

/**
 * A secret a client sends in an HTTP header (an API key, the control token): visible ASCII only,
 * 0x21 to 0x7E, which every client can send as it is and no header parser alters.
 *
 * @example headerSecretSchema.parse('sk_test_abc') // 'sk_test_abc'; 'clé' throws
 */
export const headerSecretSchema = z
  .string()
  .regex(visibleAscii, 'must be visible ASCII only (0x21 to 0x7E), as an HTTP header carries it')
