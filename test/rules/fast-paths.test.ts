import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js'
import { describe, expect, it } from 'vitest'
import { buildDataset, flatString } from '../../fixtures/build-dataset.ts'
import {
  createTokenSource,
  generateSignInToken,
  hashSecret,
  hexFromTable,
  hexOf,
} from '../../src/base/secrets.ts'
import { formatDateTime, formatInstant, formatTimestamp, timestampMs } from '../../src/base/time.ts'
import {
  apiKeyRecordSchema,
  certificateRecordSchema,
  learningPathRecordSchema,
  learningProgressRecordSchema,
  organisationRecordSchema,
  userGroupRecordSchema,
  userRecordSchema,
} from '../../src/model/records.ts'
import { createMockApi } from '../../src/root/index.ts'
import { bearerCredential } from '../../src/rules/authenticate.ts'
import { dispatchJson } from '../support/way-in.ts'

/** What the speed-ups replaced must still come out the same. */

describe('tokens and hashes', () => {
  it('hashes any secret to the hex of its SHA-256, as @noble/hashes spells it', () => {
    const secrets = ['', 'a', 'sk_test_abc', 'é'.repeat(200), '\u{1F600}'.repeat(70), '\ud800x']
    for (const secret of [...secrets, createTokenSource()()]) {
      expect(hashSecret(secret)).toBe(bytesToHex(sha256(utf8ToBytes(secret))))
    }
  })

  it('draws distinct 256-bit tokens as 64 lowercase hex characters', () => {
    const next = createTokenSource()
    const tokens = [...Array.from({ length: 600 }, next), generateSignInToken()]
    for (const token of tokens) expect(token).toMatch(/^[0-9a-f]{64}$/)
    expect(new Set(tokens).size).toBe(601)
    expect(hexOf(new Uint8Array([0, 15, 16, 255]))).toBe('000f10ff')
  })

  it("writes hex the same with the engine's toHex and without it", () => {
    const bytes = crypto.getRandomValues(new Uint8Array(4096))
    expect(hexFromTable(bytes)).toBe(Buffer.from(bytes).toString('hex'))
    expect(hexOf(bytes)).toBe(Buffer.from(bytes).toString('hex'))
    expect(hexFromTable(new Uint8Array([0, 15, 16, 255]))).toBe('000f10ff')
  })
})

describe('the bearer credential', () => {
  it('reads every spelling as the expression does, the common one without it', () => {
    const full = (header: string) => header.match(/^[ \t]*bearer[ \t]+([^ \t]+)[ \t]*$/i)?.[1]
    const parts = [
      '',
      ' ',
      '\t',
      'Bearer',
      'bearer',
      'BEARER',
      'Basic',
      'k',
      'sk_test_1',
      'a b',
      '\u00a0',
    ]
    const headers = new Set<string>()
    for (const a of parts) for (const b of parts) for (const c of parts) headers.add(a + b + c)
    for (const a of parts) for (const b of parts) headers.add(`Bearer ${a}${b}`)
    expect(headers.size).toBeGreaterThan(1000)
    for (const header of headers) expect(bearerCredential(header), header).toBe(full(header))
    expect(bearerCredential('Bearer sk_test_1')).toBe('sk_test_1')
    expect(bearerCredential(null)).toBeUndefined()
  })
})

describe('timestamps', () => {
  it('formats and parses as formatDateTime, toISOString and Date.parse do', () => {
    const instants = [0, 1, 999, 1000, 1_755_184_354_999, 1_755_184_355_000, -1, 4_102_444_800_000]
    for (let i = 0; i < 200; i++) instants.push(Math.floor(Math.random() * 4e12))
    for (const ms of instants) {
      const date = new Date(ms)
      expect(formatTimestamp(date)).toBe(formatDateTime(date))
      expect(timestampMs(formatDateTime(date))).toBe(Date.parse(formatDateTime(date)))
      // A second's stamps to the millisecond, one after another, each read as it says.
      for (const text of [formatInstant(date), formatInstant(new Date(ms + 1))]) {
        expect(timestampMs(text), text).toBe(Date.parse(text))
      }
    }
    const others = [
      '2025-08-14T15:12:34Z',
      '2025-08-14T15:12:34.5+00:00',
      '2025-08-14T17:12:34.567+02:00',
    ]
    for (const text of [...others, '2025-08-14T15:12:34.5x7+00:00', 'not a time']) {
      expect(timestampMs(text), text).toBe(Date.parse(text))
    }
    expect(flatString(`${'ab'.repeat(10)}${'cd'}`)).toBe(`${'ab'.repeat(10)}cd`)
  })
})

describe('seeded data at scale', () => {
  const options = { seed: 3, organisations: 0, extraOrganisations: [{ orgId: 'big', users: 2500 }] }

  it('is the same for the same seed, other for another, and every record valid', () => {
    const dataset = buildDataset(options)
    expect(buildDataset(options)).toEqual(dataset)
    expect(buildDataset({ ...options, seed: 4 }).state.users[1500]).not.toEqual(
      dataset.state.users[1500],
    )
    const { state } = dataset
    const schemas = [
      [state.organisations, organisationRecordSchema],
      [state.apiKeys, apiKeyRecordSchema],
      [state.users, userRecordSchema],
      [state.userGroups, userGroupRecordSchema],
      [state.learningPaths, learningPathRecordSchema],
      [state.learningProgress, learningProgressRecordSchema],
      [state.certificates, certificateRecordSchema],
    ] as const
    for (const [records, schema] of schemas) {
      for (const record of records) expect(schema.parse(record)).toEqual(record)
    }
    for (const defaults of [buildDataset(), buildDataset({ seed: 9, usersPerOrganisation: 40 })]) {
      for (const user of defaults.state.users) expect(userRecordSchema.parse(user)).toEqual(user)
    }
  })

  it('gives past the first 1,000 users numbered ids, unique, with every kind of user', () => {
    const { users, learningProgress, certificates } = buildDataset(options).state
    expect(users[999]?.id).toMatch(/^ext-big-[a-z0-9]{8}$/)
    expect(users[1000]?.id).toBe('ext-big-000001000')
    expect(users[2499]?.id).toBe('ext-big-000002499')
    expect(new Set(users.map((u) => u.id)).size).toBe(2500)
    expect(new Set(users.map((u) => u.userId)).size).toBe(2500)
    for (const user of users.slice(1000)) {
      expect(user.userId).toMatch(
        /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      )
    }
    const bulk = users.slice(1000)
    expect(new Set(bulk.map((u) => u.registrationStatus))).toEqual(
      new Set(['registered', 'unregistered', 'archived']),
    )
    const bulkIds = new Set(bulk.map((u) => u.userId))
    expect(learningProgress.filter((p) => bulkIds.has(p.userId))).toHaveLength(750)
    expect(certificates.filter((c) => bulkIds.has(c.userId))).toHaveLength(375)
    expect(new Set(bulk.map((u) => u.firstName)).size).toBeGreaterThan(100)
    // None, one or two distinct groups, as the first 1,000 users have.
    expect(new Set(bulk.map((u) => u.userGroups.length))).toEqual(new Set([0, 1, 2]))
    for (const user of bulk) expect(new Set(user.userGroups).size).toBe(user.userGroups.length)
    for (const certificate of certificates.filter((c) => bulkIds.has(c.userId))) {
      expect(certificate.certificateId).toMatch(/^cert-[a-z0-9]{10}$/)
    }
  })
})

describe('expired sign-in tokens', () => {
  it('are swept in order of expiry, however many there are', async () => {
    let now = Date.UTC(2025, 0, 1)
    const api = createMockApi({
      seededOrganisations: 0,
      organisations: [{ orgId: 'X', apiKeys: ['K'], users: 1 }],
      tokenTtlSeconds: 10,
      now: () => new Date(now),
    })
    const identify = (id: string) =>
      dispatchJson(api, 'POST', '/api/v1/users/identify', { key: 'K', body: { id, orgId: 'X' } })
    // One token per user: a user keeps 10 at most.
    for (let i = 0; i < 2500; i++) await identify(`u-${i}`)
    const tokens = async () => (await api.state()).signInTokens
    expect(await tokens()).toHaveLength(2500)
    now += 5_000
    const fresh = await identify('u-0')
    now += 6_000
    await identify('u-1')
    expect(await tokens()).toHaveLength(2)
    const redeemed = await api.redeemToken('X', fresh.body.token)
    expect(redeemed.ok).toBe(true)
  })
})
