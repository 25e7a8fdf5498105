import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

/**
 * The standalone server checks the address a webhook receiver's name resolves to, and connects to
 * that address and no other. Inside a private network namespace (`unshare -n -m`), a hosts file
 * names a listener standing at 169.254.169.254, the address of cloud metadata services; where
 * `unshare` is refused, the resolver is stubbed with the same names instead.
 */

/** What the hosts file says: the names of the receivers, and where they point. */
const hosts: Record<string, string> = {
  'metadata.test': '169.254.169.254',
  'mapped.test': '::ffff:169.254.169.254',
  'nat64.test': '64:ff9b::a9fe:a9fe',
  'linklocal6.test': 'fe80::1',
  'receiver.test': '127.0.0.1',
}

const script = fileURLToPath(new URL('../support/webhook-resolution.ts', import.meta.url))
const namespaces = spawnSync('unshare', ['-r', '-n', '-m', 'true']).status === 0
const launcher = ['unshare', '-r', '-n', '-m', 'sh', '-c']
const setUp =
  'ip link set lo up && ip addr add 169.254.169.254/32 dev lo && mount --bind "$0" /etc/hosts && exec "$@"'

interface Outcome {
  added: Record<string, number>
  attempts: Record<string, Array<{ status?: number; error?: string }> | undefined>
  receiverHits: string[]
  metadataHits: string[] | null
  secondLookups: string[]
}

let dir: string
let outcome: Outcome
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'webhook-hosts-'))
  const hostsFile = join(dir, 'hosts')
  writeFileSync(
    hostsFile,
    Object.entries(hosts)
      .map(([name, address]) => `${address} ${name}\n`)
      .join(''),
  )
  const node = [process.execPath, '--import', 'tsx', script]
  const command = namespaces
    ? [...launcher, setUp, hostsFile, ...node, 'namespace', JSON.stringify(hosts)]
    : [...node, 'stubbed', JSON.stringify(hosts)]
  const child = spawn(command[0] as string, command.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk) => {
    stdout += chunk
  })
  child.stderr.on('data', (chunk) => {
    stderr += chunk
  })
  const code = await new Promise((resolve) => child.on('exit', resolve))
  if (code !== 0) throw new Error(`the probe exited ${code}: ${stderr}`)
  outcome = JSON.parse(stdout)
}, 30_000)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const urlOf = (name: string) => Object.keys(outcome.attempts).find((url) => url.includes(name))
const attemptsTo = (name: string) => outcome.attempts[urlOf(name) as string]

describe(`a webhook receiver named by DNS (${namespaces ? 'in a network namespace' : 'resolver stubbed: unshare is refused here'})`, () => {
  it('is accepted by name: only where it points at delivery time counts', () => {
    expect(Object.values(outcome.added)).toEqual(Object.keys(hosts).map(() => 201))
  })

  it('is refused at delivery when its name resolves to 169.254.169.254, which hears nothing', () => {
    expect(attemptsTo('metadata.test')).toEqual([
      { at: expect.any(String), error: 'refused: a link-local address' },
    ])
    if (namespaces) expect(outcome.metadataHits).toEqual([])
  })

  it('is refused when it resolves to an IPv6 form of a link-local address', () => {
    for (const name of ['mapped.test', 'nat64.test', 'linklocal6.test']) {
      expect(attemptsTo(name), name).toEqual([
        { at: expect.any(String), error: 'refused: a link-local address' },
      ])
    }
  })

  it('reaches a loopback receiver at the address checked, without resolving its name again', () => {
    expect(attemptsTo('receiver.test')).toEqual([{ at: expect.any(String), status: 200 }])
    const port = new URL(urlOf('receiver.test') as string).port
    expect(outcome.receiverHits).toEqual([`receiver.test:${port} /hook`])
    // `dns.lookup` would have answered the metadata address: it was never asked.
    expect(outcome.secondLookups).toEqual([])
  })
})
