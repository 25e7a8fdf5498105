import { xchacha20poly1305 } from '@noble/ciphers/chacha.js'
import { bytesToUtf8, hexToBytes, randomBytes, utf8ToBytes } from '@noble/ciphers/utils.js'
import { hexOf } from './secrets.ts'

/**
 * Seals a secret the mock must give back later (a webhook endpoint's signing secret in a
 * snapshot) with a key drawn when the seal is made and kept only in memory: what is stored, in a
 * record, a state file or `GET /__mock/state`, is never the secret in clear, and a restart forgets
 * the key, as it forgets the live endpoints. XChaCha20-Poly1305 with a random nonce per seal.
 *
 * @example
 * const seal = createSecretSeal()
 * seal.open(seal.close('whsec_…')) // 'whsec_…'
 * createSecretSeal().open(seal.close('whsec_…')) // undefined: another key
 */
export function createSecretSeal(): SecretSeal {
  const key = randomBytes(32)
  return {
    close(secret) {
      const nonce = randomBytes(24)
      return `${hexOf(nonce)}${hexOf(xchacha20poly1305(key, nonce).encrypt(utf8ToBytes(secret)))}`
    },
    open(sealed) {
      try {
        const bytes = hexToBytes(sealed)
        const opened = xchacha20poly1305(key, bytes.subarray(0, 24)).decrypt(bytes.subarray(24))
        return bytesToUtf8(opened)
      } catch {
        return undefined
      }
    },
  }
}

/** A secret sealed by {@link createSecretSeal}, and opened again by the same seal only. */
export interface SecretSeal {
  /** The secret sealed: hex of a fresh nonce and the ciphertext. */
  close(secret: string): string
  /** The secret `sealed` holds; `undefined` when another seal closed it or it is not one. */
  open(sealed: string): string | undefined
}
