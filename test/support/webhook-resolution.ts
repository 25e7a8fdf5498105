/**
 * Run as a process by test/webhooks/webhook-targets-resolved.test.ts, with its mode and the
 * hosts (a JSON object of name → address) as arguments: starts the standalone server,
 * registers webhook endpoints by name over `POST /__mock/webhooks`, raises one event, and prints
 * as JSON what each endpoint's delivery recorded and what each listener received.
 *
 * `namespace`: run inside `unshare -n -m`, where /etc/hosts is the test's and 169.254.169.254 is
 * an address of `lo`, so a listener stands where a cloud metadata service would. `stubbed`: where
 * `unshare` is refused, the resolver answers the same names and no listener can stand there.
 *
 * In both, `dns.lookup` (what `node:http` resolves a name with) answers 169.254.169.254 for each of
 * these names: a delivery that resolved the name a second time, after checking it, would reach it.
 */
import dns from 'node:dns'
import dnsPromises from 'node:dns/promises'
import { createServer, type Server } from 'node:http'
import { syncBuiltinESMExports } from 'node:module'
import type { AddressInfo } from 'node:net'
import { startServer } from '../../src/server/server.ts'

const metadataAddress = '169.254.169.254'
const [mode, hostsJson = '{}'] = process.argv.slice(2)
/** What /etc/hosts says in the namespace (and the stubbed resolver answers): name → address. */
const hosts: Record<string, string> = JSON.parse(hostsJson)

const secondLookups: string[] = []
const originalLookup = dns.lookup
dns.lookup = ((hostname: string, options: unknown, callback?: unknown) => {
  if (!(hostname in hosts)) return Reflect.apply(originalLookup, dns, [hostname, options, callback])
  secondLookups.push(hostname)
  const done = (typeof options === 'function' ? options : callback) as (...args: unknown[]) => void
  const all = typeof options === 'object' && (options as { all?: boolean }).all
  if (all) done(null, [{ address: metadataAddress, family: 4 }])
  else done(null, metadataAddress, 4)
}) as typeof dns.lookup

if (mode === 'stubbed') {
  dnsPromises.lookup = (async (hostname: string) => {
    const address = hosts[hostname]
    if (address === undefined) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' })
    return { address, family: address.includes(':') ? 6 : 4 }
  }) as typeof dnsPromises.lookup
}
syncBuiltinESMExports()

function listen(host: string, port: number) {
  const hits: string[] = []
  const server = createServer((req, res) => {
    hits.push(`${req.headers.host} ${req.url}`)
    req.resume()
    res.end()
  })
  return new Promise<{ server: Server; hits: string[]; port: number }>((resolve) =>
    server.listen(port, host, () =>
      resolve({ server, hits, port: (server.address() as AddressInfo).port }),
    ),
  )
}

const receiver = await listen('127.0.0.1', 0)
// The same port at the metadata address: a second lookup to `receiver.test` would land here.
const metadata = mode === 'namespace' ? await listen(metadataAddress, receiver.port) : undefined

const server = await startServer({ port: 0, webhookRetrySchedule: [], webhookTimeoutMs: 5000 })
const urls = Object.keys(hosts).map((name) => `http://${name}:${receiver.port}/hook`)
const added: Record<string, { status: number; id: string }> = {}
for (const url of urls) {
  const response = await fetch(`${server.url}/__mock/webhooks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ url }),
  })
  added[url] = { status: response.status, id: ((await response.json()) as { id: string }).id }
}
await server.core.events.raise({ type: 'resolution.probe', data: {} })
await server.core.webhooks.settled()
const deliveries = server.core.webhooks.deliveries()
const attempts = Object.fromEntries(
  urls.map((url) => [url, deliveries.find((d) => d.endpoint === added[url]?.id)?.attempts]),
)
await server.close()
receiver.server.close()
metadata?.server.close()
process.stdout.write(
  JSON.stringify({
    added: Object.fromEntries(urls.map((url) => [url, added[url]?.status])),
    attempts,
    receiverHits: receiver.hits,
    metadataHits: metadata?.hits ?? null,
    secondLookups,
  }),
)
