/**
 * The addresses no webhook delivery may reach: where cloud metadata services answer (they hand
 * out the host's credentials to whoever asks from inside). Loopback and private addresses stay
 * allowed: receivers run beside the mock. IPv4 ranges also cover every IPv6 form that carries an
 * IPv4 address (see {@link embeddedIPv4}).
 */
const refusedRanges: ReadonlyArray<readonly [cidr: string, addressClass: RefusedAddressClass]> = [
  ['169.254.0.0/16', 'link-local'],
  ['fe80::/10', 'link-local'],
  // Alibaba Cloud's and Oracle Cloud's metadata services; AWS's over IPv6.
  ['100.100.100.200/32', 'cloud metadata'],
  ['192.0.0.192/32', 'cloud metadata'],
  ['fd00:ec2::254/128', 'cloud metadata'],
]

export type RefusedAddressClass = 'link-local' | 'cloud metadata'

/** What a refused delivery's attempt records as its `error`, with the class of the address. */
export const refusedAddressError = (addressClass: RefusedAddressClass) =>
  `refused: a ${addressClass} address`

/**
 * The class of `address` when webhooks must not reach it, else `undefined` (a host name, too).
 * `address` is an IP address as a resolver answers it (`169.254.169.254`, `fe80::1%eth0`) or as
 * `URL` normalises a host (IPv6 in brackets, `http://2852039166/` as `169.254.169.254`), in any of
 * its forms: IPv4, or IPv4 inside IPv6 (mapped `::ffff:a9fe:a9fe`, compatible `::a9fe:a9fe`,
 * translated `::ffff:0:a9fe:a9fe`, NAT64 `64:ff9b::a9fe:a9fe`).
 *
 * @example refusedAddressClass('[::ffff:0:a9fe:a9fe]') // 'link-local'; refusedAddressClass('127.0.0.1') // undefined
 */
export function refusedAddressClass(address: string): RefusedAddressClass | undefined {
  const bytes = addressBytes(address)
  if (!bytes) return undefined
  const ipv4 = embeddedIPv4(bytes)
  const normal = ipv4 ? mappedIPv4(ipv4) : bytes
  return ranges().find(({ prefix, bits }) => startsWith(normal, prefix, bits))?.addressClass
}

let parsedRanges: Array<{ prefix: Uint8Array; bits: number; addressClass: RefusedAddressClass }>

function ranges() {
  parsedRanges ??= refusedRanges.map(([cidr, addressClass]) => {
    const [address = '', length = ''] = cidr.split('/')
    const bytes = addressBytes(address) as Uint8Array
    const ipv4 = !address.includes(':')
    return { prefix: bytes, bits: Number(length) + (ipv4 ? 96 : 0), addressClass }
  })
  return parsedRanges
}

function startsWith(bytes: Uint8Array, prefix: Uint8Array, bits: number): boolean {
  for (let bit = 0; bit < bits; bit += 8) {
    const mask = bits - bit >= 8 ? 0xff : (0xff << (8 - (bits - bit))) & 0xff
    if (((bytes[bit / 8] as number) & mask) !== ((prefix[bit / 8] as number) & mask)) return false
  }
  return true
}

/**
 * The 16 bytes of an IP address (an IPv4 one as IPv4-mapped IPv6), `undefined` for a host name.
 * `URL` does the parsing: it reads every form an address may be written in, and writes IPv4 as
 * four decimal numbers and IPv6 as hexadecimal groups only, the longest run of zeros as `::`.
 */
function addressBytes(address: string): Uint8Array | undefined {
  const bare = address.startsWith('[') ? address.slice(1, -1) : address
  // A resolver may add the zone of a link-local address (`fe80::1%eth0`), which URLs cannot carry.
  const unzoned = bare.split('%', 1)[0] as string
  const host = URL.parse(`http://${unzoned.includes(':') ? `[${unzoned}]` : unzoned}/`)?.hostname
  if (host === undefined) return undefined
  if (!host.startsWith('[')) {
    // A host of four decimal numbers is an address: `URL` reads any name ending in a number as one.
    const parts = host.split('.')
    const ipv4 = parts.length === 4 && parts.every((part) => String(Number(part)) === part)
    return ipv4 ? mappedIPv4(Uint8Array.from(parts.map(Number))) : undefined
  }
  const [head = '', tail] = host.slice(1, -1).split('::')
  const groupsOf = (text: string | undefined) =>
    text ? text.split(':').map((group) => Number.parseInt(group, 16)) : []
  const [before, after] = [groupsOf(head), groupsOf(tail)]
  const groups = [...before, ...new Array(8 - before.length - after.length).fill(0), ...after]
  return Uint8Array.from(groups.flatMap((group) => [group >> 8, group & 0xff]))
}

function mappedIPv4(ipv4: Uint8Array): Uint8Array {
  const bytes = new Uint8Array(16)
  bytes[10] = 0xff
  bytes[11] = 0xff
  bytes.set(ipv4, 12)
  return bytes
}

/**
 * The IPv4 address an IPv6 one carries in its last 32 bits, for the prefixes that reach it:
 * mapped (`::ffff:0:0/96`), compatible (`::/96`), translated (`::ffff:0:0:0/96`) and the NAT64
 * well-known prefix (`64:ff9b::/96`); `undefined` for any other.
 */
function embeddedIPv4(bytes: Uint8Array): Uint8Array | undefined {
  const word = (i: number) => ((bytes[2 * i] as number) << 8) | (bytes[2 * i + 1] as number)
  const zeroFrom = (from: number, to: number) => {
    for (let i = from; i < to; i++) if (word(i) !== 0) return false
    return true
  }
  const carries =
    (zeroFrom(0, 5) && (word(5) === 0xffff || word(5) === 0)) ||
    (zeroFrom(0, 4) && word(4) === 0xffff && word(5) === 0) ||
    (word(0) === 0x64 && word(1) === 0xff9b && zeroFrom(2, 6))
  return carries ? bytes.subarray(12) : undefined
}
