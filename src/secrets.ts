import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js'

/**
 * The hash under which API keys and sign-in tokens are stored. Synchronous, unlike WebCrypto's
 * digest, so that authenticating a request costs no extra turn of the event loop.
 */
export function hashSecret(secret: string): string {
  return bytesToHex(sha256(utf8ToBytes(secret)))
}

/** A new sign-in token: 256 bits from the platform's cryptographic random source, as hex. */
export function generateSignInToken(): string {
  return bytesToHex(crypto.getRandomValues(new Uint8Array(32)))
}

/** The last four characters of a secret, for a human to recognise it by. */
export function secretHint(secret: string): string {
  return `…${secret.slice(-4)}`
}
