import { lookup } from 'node:dns/promises'
import { request as httpRequest, type IncomingMessage } from 'node:http'
import { isIP, type LookupFunction } from 'node:net'
import { refusedAddressClass, refusedAddressError } from '../webhooks/addresses.ts'
import type { WebhookTransport } from '../webhooks/delivery.ts'

/**
 * The standalone server's webhook attempts: the receiver's name is resolved once, the address
 * refused if webhooks must not reach it (`refusedAddressClass`), and the connection made to
 * exactly that address: the request's own `lookup` answers it, so nothing resolves the name a
 * second time between the check and the connection (a name that answers a public address, then
 * 169.254.169.254, reaches only the first). The `Host` header and TLS's server name stay the
 * URL's. A new connection each attempt, so that no kept-alive socket skips the check.
 *
 * @example new MockCore(seedDataset, options, store, pinnedWebhookTransport)
 */
export const pinnedWebhookTransport: WebhookTransport = async (url, { headers, body, signal }) => {
  const { protocol, hostname } = new URL(url)
  const name = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname
  const family = isIP(name)
  const resolved = family !== 0 ? { address: name, family } : await lookup(name)
  signal.throwIfAborted()
  const refused = refusedAddressClass(resolved.address)
  if (refused) return { error: refusedAddressError(refused) }
  const pinned: LookupFunction = (_name, options, callback) => {
    if (options.all) callback(null, [resolved])
    else callback(null, resolved.address, resolved.family)
  }
  // TLS is loaded only for the first https: receiver: most receivers are local, over http:.
  const send = protocol === 'https:' ? (await import('node:https')).request : httpRequest
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    const request = send(url, { method: 'POST', headers, signal, lookup: pinned, agent: false })
    request.once('response', resolve)
    request.once('error', reject)
    request.end(body)
  })
  response.destroy()
  return { status: response.statusCode ?? 0 }
}
