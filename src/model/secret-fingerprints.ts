import { bareKeyOf, generatedSecretForms } from '../base/secrets.ts'
import type { ObservedRecords } from './indexes.ts'

/**
 * The most SHA-256 a string costs the search for secrets held only as hashes, for each form of
 * secret (see `findUnseen`).
 */
const maxUnseenChecks = 64

/**
 * A rolling fingerprint (Rabin–Karp) of every API key, sign-in token and web-view session the mock
 * has held in clear since it started, by length: what lets the journal find a secret anywhere
 * inside a string (`u-sk_test_….x`) in one pass, hashing with SHA-256 only the pieces whose
 * fingerprint a secret has. Kept in memory only, never in a state file or a record: a fingerprint
 * is 32 bits, a polynomial of the secret's characters modulo 2^32 (32-bit integer arithmetic, the
 * fastest a JavaScript engine has) in a random odd base drawn for each database, and the process
 * holds the secrets themselves anyway (the options' keys, a token while it is answered).
 *
 * An API key is remembered by its secret part alone, after its public prefix (`sk_test_`), when
 * that part is long enough (see `bareKeyOf`): found in the key sent whole and in the part a client
 * sent without the prefix, with one pass over a text where a fingerprint of each would cost two.
 *
 * A secret leaves the index when its record leaves its collection (swept, deleted, evicted).
 */
export class SecretFingerprints {
  // biome-ignore lint/style/noNonNullAssertion: one value is always drawn
  readonly #base = (crypto.getRandomValues(new Uint32Array(1))[0]! | 1) >>> 0
  readonly #byHash = new Map<string, { length: number; fingerprint: number }>()
  /** Per length: the base to the power length, and how many secrets have each fingerprint. */
  readonly #byLength = new Map<number, { power: number; counts: Map<number, number> }>()
  /** The lengths of {@link #byLength}, shortest first. */
  #lengths: number[] = []

  /**
   * The hashes of the secrets held whose clear text the mock has not seen since it started: those
   * a state file kept (tokens, sessions, the keys of organisations created at run time), until
   * they authenticate, expire or go.
   */
  readonly #unseen = new Set<string>()

  constructor(held: {
    apiKeys: ObservedRecords<{ keyHash: string }>
    signInTokens: ObservedRecords<{ tokenHash: string }>
    webViewSessions: ObservedRecords<{ sessionHash: string }>
  }) {
    held.apiKeys.observe(this.#observer((r) => r.keyHash))
    held.signInTokens.observe(this.#observer((r) => r.tokenHash))
    held.webViewSessions.observe(this.#observer((r) => r.sessionHash))
  }

  /**
   * Remembers `secret` (whose SHA-256 is `hash`, the key of its record): call it wherever the mock
   * holds one in clear. Costs one pass over `secret`, nothing once it is known.
   */
  add(secret: string, hash: string): void {
    if (secret.length === 0 || this.#byHash.has(hash)) return
    this.#remember(bareKeyOf(secret) ?? secret, hash)
    this.#unseen.delete(hash)
  }

  #remember(secret: string, hash: string): void {
    let table = this.#byLength.get(secret.length)
    if (!table) {
      table = { power: this.#power(secret.length), counts: new Map() }
      this.#byLength.set(secret.length, table)
      this.#lengths = [...this.#byLength.keys()].sort((a, b) => a - b)
    }
    const fingerprint = this.#fingerprint(secret)
    this.#byHash.set(hash, { length: secret.length, fingerprint })
    table.counts.set(fingerprint, (table.counts.get(fingerprint) ?? 0) + 1)
  }

  /**
   * Whether `text` holds, in one of the forms the mock generates secrets in
   * (`generatedSecretForms`), a piece that passes `confirm`: for the secrets held only as hashes
   * (see {@link #unseen}), which no fingerprint finds. Nothing when there are none. Each run of a
   * form costs a SHA-256 per place a secret may start; past {@link maxUnseenChecks} of them for one
   * form, the text counts as holding one (the journal then over-redacts, the safe side), so that no string
   * costs more than that.
   *
   * @example fingerprints.findUnseen(`x${token}y`, (piece) => isSecret(ctx, piece)) // true after a restart
   */
  findUnseen(text: string, confirm: (piece: string) => boolean): boolean {
    if (this.#unseen.size === 0) return false
    for (const { pattern, length, prefix = '' } of generatedSecretForms) {
      let checks = 0
      for (const [run] of text.matchAll(pattern)) {
        for (let at = 0; at + length <= run.length; at++) {
          if (++checks > maxUnseenChecks || confirm(prefix + run.slice(at, at + length))) {
            return true
          }
        }
      }
    }
    return false
  }

  /** Keeps {@link #unseen} and the fingerprints as the records holding secrets come and go. */
  #observer<R>(hashOf: (record: R) => string) {
    return {
      added: (record: R) => {
        const hash = hashOf(record)
        if (!this.#byHash.has(hash)) this.#unseen.add(hash)
      },
      removed: (record: R) => {
        const hash = hashOf(record)
        this.#unseen.delete(hash)
        this.#forget(hash)
      },
    }
  }

  /**
   * Whether some piece of `text` of a held secret's length, whose fingerprint a held secret has,
   * passes `confirm` (which checks its SHA-256; a key's secret part alone is checked with its
   * public prefix, see {@link bareKeyOf}). One pass over `text` per distinct length of the
   * secrets held (two for the seeded keys and the tokens); nothing for text shorter than them all.
   *
   * @example fingerprints.find('u-sk_test_….x', (piece) => isSecret(ctx, piece)) // true
   */
  find(text: string, confirm: (piece: string) => boolean): boolean {
    const base = this.#base
    for (const length of this.#lengths) {
      if (length > text.length) break
      const { power, counts } = this.#byLength.get(length) as {
        power: number
        counts: Map<number, number>
      }
      let hash = 0
      for (let i = 0; i < text.length; i++) {
        hash = (Math.imul(hash, base) + text.charCodeAt(i)) | 0
        if (i < length - 1) continue
        if (i >= length) hash = (hash - Math.imul(text.charCodeAt(i - length), power)) | 0
        if (counts.has(hash) && confirm(text.slice(i - length + 1, i + 1))) return true
      }
    }
    return false
  }

  #fingerprint(text: string): number {
    let hash = 0
    for (let i = 0; i < text.length; i++)
      hash = (Math.imul(hash, this.#base) + text.charCodeAt(i)) | 0
    return hash
  }

  #power(exponent: number): number {
    let power = 1
    for (let i = 0; i < exponent; i++) power = Math.imul(power, this.#base)
    return power
  }

  #forget(hash: string): void {
    const known = this.#byHash.get(hash)
    if (!known) return
    this.#byHash.delete(hash)
    const table = this.#byLength.get(known.length)
    const count = table?.counts.get(known.fingerprint) ?? 0
    if (count > 1) table?.counts.set(known.fingerprint, count - 1)
    else table?.counts.delete(known.fingerprint)
    if (table?.counts.size === 0) {
      this.#byLength.delete(known.length)
      this.#lengths = this.#lengths.filter((length) => length !== known.length)
    }
  }
}
