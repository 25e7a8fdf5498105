import fc from 'fast-check'
import type { MockApiOptions, MockState } from '../../src/root/index.ts'
import type { OracleRequest, World } from './api-oracle.ts'
import {
  anyJson,
  authorizationValue,
  type BodyPools,
  contentTypeValue,
  identifyValue,
  nonJsonBody,
  otherHeaders,
  prototypeNames,
} from './arbitraries.ts'

/** The fixed clock of every mock the properties start: timestamps become exact expectations. */
export const fixedNow = new Date('2025-06-01T09:00:00Z')
export const fixedNowText = '2025-06-01T09:00:00+00:00'

/** The two configurations the properties run: the defaults, and the strictest answers. */
export const mockConfigurations = {
  default: { now: () => fixedNow },
  strict: { now: () => fixedNow, strictUserGroups: true, authFailureStatus: 403 },
} as const satisfies Record<string, MockApiOptions>

export type MockConfiguration = keyof typeof mockConfigurations

export function worldOf(
  configuration: MockConfiguration,
  credentials: Array<{ orgId: string; apiKeys: string[] }>,
  state: MockState,
  fault?: World['fault'],
): World {
  const options: MockApiOptions = mockConfigurations[configuration]
  return {
    keys: new Map(credentials.flatMap((c) => c.apiKeys.map((k) => [k, c.orgId] as const))),
    state,
    strictUserGroups: options.strictUserGroups ?? false,
    authFailureStatus: options.authFailureStatus ?? 401,
    now: fixedNowText,
    tokenTtlSeconds: 300,
    ...(fault && { fault }),
  }
}

/**
 * Ids, organisations and groups of the seeded state, for generators to aim at: `orgId`, the
 * caller's organisation, first.
 */
export function poolsOf(state: MockState, orgId: string): BodyPools {
  const others = state.organisations.map((o) => o.orgId).filter((o) => o !== orgId)
  return {
    ids: [...state.users.map((u) => u.id), 'new-user', '__proto__', 'constructor'],
    orgIds: [orgId, ...others, 'no-such-org'],
    groupIds: [...new Set(state.userGroups.map((g) => g.groupId)), 'new-group', '__proto__'],
  }
}

const utf8 = (text: string) => new TextEncoder().encode(text)

/** Identify bodies: JSON of any shape (mostly near the schema), not JSON at all, empty, none. */
export function identifyBody(pools: BodyPools): fc.Arbitrary<Uint8Array | null> {
  const value = identifyValue(pools)
  const text = value.map((v) => JSON.stringify(v) ?? 'null')
  return fc.oneof(
    { weight: 10, arbitrary: text.map(utf8) },
    { weight: 2, arbitrary: nonJsonBody(text) },
    { weight: 1, arbitrary: fc.constantFrom(null, new Uint8Array()) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(prototypeNames, anyJson)
        .map(([key, v]) => utf8(`{"${key}":${JSON.stringify(v)}}`)),
    },
  )
}

/** A forced fault queued before the call, now and then. */
export const maybeFault = fc.oneof(
  { weight: 14, arbitrary: fc.constant(undefined) },
  {
    weight: 1,
    arbitrary: fc.oneof(
      fc.constantFrom(400, 403, 500).map((status) => ({ operation: 'identify' as const, status })),
      fc.constantFrom(403, 404, 500).map((status) => ({ operation: 'delete' as const, status })),
    ),
  },
)

/** One generated call, with the mock configuration it runs against and a fault queued before it. */
export interface ApiCase extends OracleRequest {
  configuration: MockConfiguration
  fault: World['fault']
  /** Headers the API does not read, sent along by the transports. */
  otherHeaders: Array<[string, string]>
}

export interface CaseOptions {
  state: MockState
  credentials: Array<{ orgId: string; apiKeys: string[] }>
  /** Header values any string (the transport-free way in), or only what HTTP carries. */
  wide: boolean
  methods: fc.Arbitrary<string>
  targets: (pools: BodyPools) => fc.Arbitrary<string>
  /** How often there is a body at all: 1 in `bodyFreq` cases have none. */
  bodyFreq?: number
}

const configuration = fc.oneof(
  { weight: 3, arbitrary: fc.constant<MockConfiguration>('default') },
  { weight: 1, arbitrary: fc.constant<MockConfiguration>('strict') },
)

/**
 * Calls made with one organisation's key (in every spelling, right or wrong) aimed mostly at that
 * organisation's users, so that successes are as common as each error.
 */
export function apiCase(options: CaseOptions): fc.Arbitrary<ApiCase> {
  const callers = options.credentials.filter((c) => c.apiKeys.length > 0)
  return fc.constantFrom(...callers).chain((caller) => {
    const pools = poolsOf(options.state, caller.orgId)
    const body = identifyBody(pools)
    return fc.record({
      configuration,
      method: options.methods,
      target: options.targets(pools),
      authorization: authorizationValue(caller.apiKeys, options.wide),
      contentType: contentTypeValue(options.wide),
      body: options.bodyFreq ? fc.option(body, { freq: options.bodyFreq, nil: null }) : body,
      fault: maybeFault,
      otherHeaders: options.wide ? fc.constant([]) : otherHeaders,
    })
  })
}

/**
 * Identify calls as a transport carries them: mostly `POST`, now and then one of `otherMethods`,
 * always to the identify path.
 */
export function identifyCalls(
  otherMethods: fc.Arbitrary<string>,
): Pick<CaseOptions, 'wide' | 'methods' | 'targets'> {
  return {
    wide: false,
    methods: fc.oneof(
      { weight: 12, arbitrary: fc.constant('POST') },
      { weight: 1, arbitrary: otherMethods },
    ),
    targets: () => fc.constant('/api/v1/users/identify'),
  }
}
