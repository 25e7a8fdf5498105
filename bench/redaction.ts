/**
 * What the journal's redaction costs per call, in-process (`node bench/redaction.ts`): an answered
 * identify body with nothing to redact (the hot path), one with a 1 KiB string, one with a key
 * glued inside its id, and one SHA-256 of a key for scale (the rule before hashed every string of
 * 8 characters or more). The mock holds 2 keys and 10,000 tokens.
 */

import { generateSignInToken, hashSecret } from '../src/base/secrets.ts'
import { redactCall } from '../src/core/redact-secrets.ts'
import { Database, emptyState } from '../src/model/database.ts'
import { resolveOptions } from '../src/options/mock-api-options.ts'
import { createRuleContext } from '../src/rules/context.ts'
import { medianLatencyMs } from './lib/micro.ts'

const key = 'sk_test_pI0i95bloxpGcS1Fpy8cNYjG'
const state = emptyState()
const held: Array<[string, string]> = [key, 'sk_test_second0123456789abcdefgh'].map((k) => [
  k,
  hashSecret(k),
])
state.apiKeys = held.map(([, keyHash]) => ({ keyHash, orgId: 'acme' }))
const tokens = Array.from({ length: 10_000 }, () => generateSignInToken())
state.signInTokens = tokens.map((token) => ({
  tokenHash: hashSecret(token),
  userId: 'u',
  orgId: 'acme',
  issuedAt: '2025-01-01T00:00:00+00:00',
  expiresAt: '2099-01-01T00:00:00+00:00',
  redeemedAt: null,
}))
const db = new Database()
await db.load(state)
for (const [secret, hash] of held) db.secretFingerprints.add(secret, hash)
for (const [i, token] of tokens.entries()) {
  db.secretFingerprints.add(token, state.signInTokens[i]?.tokenHash as string)
}
const ctx = createRuleContext(resolveOptions({}), db)

const typical = {
  id: 'user-8f14e45f',
  orgId: 'acme',
  data: {
    firstName: 'Ada',
    lastName: 'Lovelace',
    email: 'ada.lovelace@example.com',
    country: 'United Kingdom',
    userGroups: ['grp-1', 'grp-2'],
  },
}
const cases = {
  'typical identify body, nothing to redact': typical,
  'with a 1 KiB string, nothing to redact': {
    ...typical,
    data: { ...typical.data, lastName: 'x'.repeat(1024) },
  },
  'with a key inside its id (u-<key>.x)': { ...typical, id: `u-${key}.x` },
}

console.log('journal redaction, per call (median):')
for (const [name, request] of Object.entries(cases)) {
  const call = { operation: 'identify', request } as const
  const ms = await medianLatencyMs(() => redactCall(ctx, call, true))
  console.log(`  ${name.padEnd(44)} ${(ms * 1000).toFixed(2)} µs`)
}
const hashMs = await medianLatencyMs(() => hashSecret(key))
console.log(`  ${'one SHA-256 of a key, for scale'.padEnd(44)} ${(hashMs * 1000).toFixed(2)} µs`)
