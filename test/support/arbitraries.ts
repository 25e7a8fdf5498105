import fc from 'fast-check'

/** The generators of the property-based tests; their seed and runs are set in properties.ts. */
export const prototypeNames = fc.constantFrom(
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
)

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c))

/** One character of any kind: control, whitespace of every sort, astral, a lone surrogate. */
const anyUnit = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'a',
      'Z',
      '0',
      '-',
      ' ',
      '/',
      '%',
      '"',
      '\\',
      '\u0000',
      '\t',
      '\n',
      '\u00a0',
      '\u2028',
      '\ufeff',
      'é',
      'ß',
      '漢',
      '😀',
      '\u0301',
    ),
  },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  { weight: 1, arbitrary: loneSurrogate },
)

/** Any string at all, prototype property names included. */
export const anyString = fc.oneof(
  { weight: 5, arbitrary: fc.string({ unit: anyUnit, maxLength: 12 }) },
  { weight: 1, arbitrary: prototypeNames },
)

const nonEmptyString = fc.oneof(
  { weight: 5, arbitrary: fc.string({ unit: anyUnit, minLength: 1, maxLength: 12 }) },
  { weight: 1, arbitrary: prototypeNames },
)

/** Any JSON value, shallow enough to keep cases small. */
export const anyJson = fc.jsonValue({ maxDepth: 2 })

/** A value of the wrong type for most fields (sometimes, by chance, of the right one). */
const wrongValue = fc.oneof(
  anyJson,
  fc.constantFrom(null, true, 0, -1, 1.5, [], {}, [1], ['x', 2], 'other', '17', ''),
)

/** An object with these entries, `__proto__` included as an own key (as `JSON.parse` makes it). */
function objectOf(entries: Array<[string, unknown]>): Record<string, unknown> {
  const object: Record<string, unknown> = {}
  for (const [key, value] of entries) {
    Object.defineProperty(object, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    })
  }
  return object
}

/** Fields the schema does not know: rare, of any name (near-misses and prototype names too). */
const unknownFields = fc.oneof(
  { weight: 20, arbitrary: fc.constant([] as Array<[string, unknown]>) },
  {
    weight: 1,
    arbitrary: fc.array(
      fc.tuple(
        fc.oneof(anyString, prototypeNames, fc.constantFrom('ID', 'orgid', 'Data', 'firstname')),
        anyJson,
      ),
      { minLength: 1, maxLength: 2 },
    ),
  },
)

/** Mostly a value of the right type, sometimes one of any other. */
const fieldValue = <T>(valid: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 20, arbitrary: valid }, { weight: 1, arbitrary: wrongValue })

/** Shrinks to its absence first; present about half the time. */
const optionalEntry = <T>(key: string, value: fc.Arbitrary<T>) =>
  fc.option(
    value.map((v) => [key, v] as [string, unknown]),
    { freq: 2, nil: undefined },
  )

export interface BodyPools {
  ids: string[]
  /** The first is the caller's own organisation, chosen most often. */
  orgIds: string[]
  groupIds: string[]
}

/**
 * An identify request body as a value: mostly well-formed, with every field sometimes missing,
 * of another type or out of its enumeration, unknown fields at every level, any Unicode in the
 * strings and prototype names as keys and as ids. `pools` bias ids towards existing users,
 * organisations and groups, so that updates and tenancy are exercised as much as creation.
 */
export function identifyValue(pools: BodyPools): fc.Arbitrary<unknown> {
  const id = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...pools.ids) },
    { weight: 5, arbitrary: nonEmptyString },
    { weight: 1, arbitrary: fc.constant('') },
  )
  const orgId = fc.oneof(
    { weight: 8, arbitrary: fc.constant(pools.orgIds[0] ?? '') },
    { weight: 3, arbitrary: fc.constantFrom(...pools.orgIds) },
    { weight: 1, arbitrary: anyString },
  )
  const group = fc.oneof(fc.constantFrom(...pools.groupIds), anyString)
  const data = fc
    .tuple(
      optionalEntry('firstName', fieldValue(anyString)),
      optionalEntry('lastName', fieldValue(anyString)),
      optionalEntry('country', fieldValue(anyString)),
      optionalEntry('region', fieldValue(anyString)),
      optionalEntry('sex', fieldValue(fc.constantFrom('male', 'female'))),
      optionalEntry(
        'ageBracket',
        fieldValue(fc.constantFrom('18-24', '25-34', '35-44', '45-54', '55-64', '65+')),
      ),
      optionalEntry('userGroups', fieldValue(fc.array(group, { maxLength: 4 }))),
      unknownFields,
    )
    .map(([...entries]) => {
      const extra = entries.pop() as Array<[string, unknown]>
      return objectOf([...(entries.filter(Boolean) as Array<[string, unknown]>), ...extra])
    })
  const request = fc
    .tuple(
      fc.option(
        fieldValue(id).map((v) => ['id', v] as [string, unknown]),
        { freq: 20, nil: undefined },
      ),
      fc.option(
        fieldValue(orgId).map((v) => ['orgId', v] as [string, unknown]),
        { freq: 20, nil: undefined },
      ),
      optionalEntry(
        'data',
        fc.oneof({ weight: 12, arbitrary: data }, { weight: 1, arbitrary: wrongValue }),
      ),
      unknownFields,
    )
    .map(([...entries]) => {
      const extra = entries.pop() as Array<[string, unknown]>
      return objectOf([...(entries.filter(Boolean) as Array<[string, unknown]>), ...extra])
    })
  return fc.oneof({ weight: 15, arbitrary: request }, { weight: 1, arbitrary: anyJson })
}

const utf8 = (text: string) => new TextEncoder().encode(text)

/**
 * Bodies that are not a JSON text, or not one in UTF-8: random bytes, truncated or padded JSON,
 * JSON's near relatives, invalid and overlong UTF-8 inside valid JSON, UTF-16.
 */
export function nonJsonBody(validText: fc.Arbitrary<string>): fc.Arbitrary<Uint8Array> {
  const bytes = (list: number[]) => new Uint8Array(list)
  return fc.oneof(
    fc.uint8Array({ maxLength: 48 }),
    validText.chain((text) =>
      fc.nat(Math.max(0, text.length - 1)).map((n) => utf8(text.slice(0, n))),
    ),
    fc
      .tuple(validText, fc.constantFrom('}', ',', ' x', '\u0000', '{}', ']', '//'))
      .map(([text, tail]) => utf8(text + tail)),
    fc
      .constantFrom(
        "{'id':'x','orgId':'org-1'}",
        '{"id":"x","orgId":"org-1",}',
        '{id:"x",orgId:"org-1"}',
        '{"id":"x","orgId":"org-1"} /* c */',
        'NaN',
        'undefined',
        'Infinity',
        '{"id":"x","orgId":"org-1"',
        '[{"id":"x","orgId":"org-1"}]',
        '"{\\"id\\":\\"x\\",\\"orgId\\":\\"org-1\\"}"',
        '{"id":"\\ud800","orgId":"org-1","data":{"firstName":"\\u00"}}',
      )
      .map(utf8),
    fc
      .tuple(
        fc.constantFrom(
          [0xff],
          [0xc0, 0x80],
          [0xed, 0xa0, 0x80],
          [0xf8, 0x88, 0x80, 0x80, 0x80],
          [0xe2, 0x82],
          [0x80],
        ),
        fc.constantFrom('org-1', 'org-2'),
      )
      .map(([bad, org]) => {
        const [head, tail] = [utf8('{"id":"bad-'), utf8(`","orgId":"${org}"}`)]
        return bytes([...head, ...bad, ...tail])
      }),
    validText.map((text) => {
      const out = new Uint8Array(text.length * 2)
      for (let i = 0; i < text.length; i++) out[i * 2] = text.charCodeAt(i) & 0xff
      return out
    }),
  )
}

/** Optional whitespace as HTTP allows it around and between the parts of a header. */
const ows = fc.constantFrom('', ' ', '\t', '  ', ' \t')
const rws = fc.constantFrom(' ', '\t', '  ', ' \t ')

/**
 * `Authorization` values: valid ones in every allowed spelling, near-misses of every sort and
 * arbitrary text. `wide` adds characters no HTTP transport carries (for the transport-free way in).
 */
export function authorizationValue(keys: string[], wide: boolean): fc.Arbitrary<string | null> {
  const key = fc.constantFrom(...keys)
  const text = wide ? anyString : headerText
  const valid = fc
    .tuple(ows, fc.mixedCase(fc.constant('bearer')), rws, key, ows)
    .map((parts) => parts.join(''))
  const nearMisses = fc.oneof(
    fc.constant(null),
    key,
    key.map((k) => `Bearer ${k}x`),
    key.map((k) => `Bearer ${k.slice(0, -1)}`),
    key.map((k) => `Bearer ${k.toLowerCase()}`),
    key.map((k) => `Bearer ${k} ${k}`),
    key.map((k) => `Bearer${k}`),
    key.map((k) => `Basic ${k}`),
    key.map((k) => `Bearer\u00a0${k}`),
    key.map((k) => `Bearer ${k}\u00a0`),
    key.map((k) => `\u00a0Bearer ${k}`),
    ...(wide
      ? [
          key.map((k) => `Bearer ${k}\u000b`),
          key.map((k) => `Bearer ${k}\n`),
          key.map((k) => `\ufeffBearer ${k}`),
          key.map((k) => `Bearer\u3000${k}`),
        ]
      : []),
    fc.constantFrom(
      '',
      'Bearer',
      'Bearer ',
      'bearer  ',
      'Token abc',
      'Bearer null',
      'Bearer undefined',
    ),
    fc.tuple(fc.mixedCase(fc.constant('bearer')), rws, text).map((parts) => parts.join('')),
    text,
  )
  return fc.oneof({ weight: 5, arbitrary: valid }, { weight: 1, arbitrary: nearMisses })
}

/** Text an HTTP header value can carry: tab, printable ASCII, and the bytes 0x80-0xFF. */
export const headerText = fc.string({
  unit: fc.oneof(
    fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
    fc.integer({ min: 0x80, max: 0xff }).map((c) => String.fromCharCode(c)),
    fc.constant('\t'),
  ),
  maxLength: 24,
})

/** `Content-Type` values: JSON in every allowed spelling, its near relatives, absent, anything. */
export function contentTypeValue(wide: boolean): fc.Arbitrary<string | null> {
  const json = fc
    .tuple(
      ows,
      fc.mixedCase(fc.constant('application/json')),
      ows,
      fc.constantFrom(
        '',
        ';',
        '; charset=utf-8',
        ';charset=UTF-8',
        '; q=1; x="a;b"',
        '; charset=latin1',
      ),
    )
    .map((parts) => parts.join(''))
  return fc.oneof(
    { weight: 10, arbitrary: fc.constant('application/json') },
    { weight: 3, arbitrary: json },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        null,
        '',
        'text/plain',
        'application/jsonx',
        'application/json-patch+json',
        'application/problem+json',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application /json',
        'application/ json',
        'json',
        'application/json\u00a0',
        '\u00a0application/json',
      ),
    },
    { weight: 1, arbitrary: wide ? anyString : headerText },
  )
}

/** A path segment: plain, encoded, empty, dot segments, and malformed percent-encoding. */
export function pathSegment(known: string[]): fc.Arbitrary<string> {
  const plainChar = fc.constantFrom(...'abcXYZ019-._~!$&\'()*+,;=:@"<>[]\\^`{|}'.split(''))
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...known).map(encodeURIComponent) },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        '',
        '.',
        '..',
        '%2e%2e',
        '__proto__',
        'constructor',
        'prototype',
        '%',
        '%2',
        '%zz',
        '%%',
        '%2F',
        '%252F',
        '%00',
        '%20',
        '%C0%80',
        '%ED%A0%80',
        '%E0%A4%A',
        '%F0%9F%98%80',
        '%FF',
        '%u0041',
        '%5F%5Fproto%5F%5F',
        'identify',
        'users',
      ),
    },
    { weight: 2, arbitrary: fc.string({ unit: plainChar, maxLength: 8 }) },
    {
      weight: 2,
      arbitrary: fc.string({ unit: 'binary', maxLength: 6 }).map((s) => encodeURIComponent(s)),
    },
  )
}

/**
 * A request target under `/api`: mostly a delete of a user of the pools (so that deletes succeed
 * as often as they fail), and the two routes' shapes with any segments, near-miss prefixes, extra
 * or missing segments, and a query or fragment, as the client writes it.
 */
export function apiTarget(pools: Pick<BodyPools, 'ids' | 'orgIds'>): fc.Arbitrary<string> {
  const segment = pathSegment([...pools.ids, ...pools.orgIds])
  const tail = fc.oneof(
    { weight: 6, arbitrary: fc.constant('') },
    {
      weight: 1,
      arbitrary: fc.constantFrom('?', '?a=1', '?%zz', '#', '#x', '?x#y', '?/api/v1/users/identify'),
    },
  )
  const prefix = fc.oneof(
    { weight: 8, arbitrary: fc.constant('/api/v1/users') },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '/api/v1',
        '/api/v2/users',
        '/api/V1/users',
        '/api/v1/Users',
        '/api/v1/users/x',
        '/api',
      ),
    },
  )
  const orgSegment = fc.oneof(
    { weight: 4, arbitrary: fc.constant(pools.orgIds[0] ?? '') },
    { weight: 1, arbitrary: fc.constantFrom(...pools.orgIds) },
  )
  const path = fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .tuple(orgSegment, fc.constantFrom(...pools.ids))
        .map(([org, id]) => `/api/v1/users/${encodeURIComponent(org)}/${encodeURIComponent(id)}`),
    },
    {
      weight: 6,
      arbitrary: fc.tuple(prefix, segment, segment).map(([p, a, b]) => `${p}/${a}/${b}`),
    },
    { weight: 2, arbitrary: prefix.map((p) => `${p}/identify`) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(prefix, fc.array(segment, { maxLength: 4 }))
        .map(([p, rest]) => [p, ...rest].join('/')),
    },
  )
  return fc.tuple(path, tail).map(([p, t]) => p + t)
}

/** The methods Node's HTTP parser knows (and so MSW's interceptor too), most weight on the API's. */
export function httpMethod(exclude: string[] = []): fc.Arbitrary<string> {
  const others = [
    'GET',
    'HEAD',
    'PUT',
    'PATCH',
    'OPTIONS',
    'TRACE',
    'COPY',
    'LOCK',
    'MKCOL',
    'MOVE',
    'PROPFIND',
    'PURGE',
    'QUERY',
    'REPORT',
    'SEARCH',
    'M-SEARCH',
    'NOTIFY',
    'UNLINK',
  ].filter((m) => !exclude.includes(m))
  return fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom('POST', 'DELETE') },
    { weight: 2, arbitrary: fc.constantFrom(...others) },
  )
}

const framingHeaders = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'expect',
  'te',
  'trailer',
  'proxy-connection',
  'http2-settings',
  'authorization',
  'content-type',
])

/** Any other headers (not those that frame the message, nor the two the API reads). */
export const otherHeaders = fc.array(
  fc.tuple(
    fc
      .string({
        unit: fc.constantFrom(..."abcxyzABC-_!#$%&'*+.^`|~0123456789".split('')),
        minLength: 1,
        maxLength: 12,
      })
      .filter((name) => !framingHeaders.has(name.toLowerCase())),
    headerText,
  ),
  { maxLength: 3 },
)
