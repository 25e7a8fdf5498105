import { send } from './processes.ts'

/** An organisation and its key, as a bench tenant calls with them. */
export interface BenchTenant {
  orgId: string
  apiKey: string
}

/** How often {@link identifyWhile} sends another tenant's identify, in milliseconds. */
const everyMs = 10

/**
 * Another tenant's identify sent every 10 ms while `work` runs, each without waiting for the one
 * before (a stall delays every call sent during it, as it would a test suite's, rather than the one
 * call a closed loop would have waiting): the time of each answer (ms) and how many were not 200.
 * What says whether a long control call stalls the others.
 */
export async function identifyWhile(
  url: string,
  other: BenchTenant,
  work: () => Promise<void>,
): Promise<{ times: number[]; failures: number }> {
  const times: number[] = []
  let failures = 0
  let running = true
  const done = work().finally(() => {
    running = false
  })
  const calls: Promise<void>[] = []
  for (let i = 0; running; i++) {
    const started = performance.now()
    calls.push(
      send({
        url: `${url}/api/v1/users/identify`,
        method: 'POST',
        headers: { authorization: `Bearer ${other.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ id: `other-${i % 100}`, orgId: other.orgId }),
      }).then((answer) => {
        times.push(performance.now() - started)
        if (answer.status !== 200) failures++
      }),
    )
    await new Promise((resolve) => setTimeout(resolve, everyMs))
  }
  await Promise.all([done, ...calls])
  return { times, failures }
}

/** The `p`-quantile (0 to 1) of `values`, nearest rank. */
export function quantile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? Number.NaN
}

/** A new organisation of the server, created over HTTP with `input`. */
export async function createTenant(url: string, input: object = {}): Promise<BenchTenant> {
  const answer = await send({
    url: `${url}/__mock/organisations`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(input),
  })
  if (answer.status !== 201) throw new Error(`creation answered ${answer.status}: ${answer.body}`)
  return JSON.parse(answer.body) as BenchTenant
}

/**
 * Fills the fault queue to its 16 MiB bound over HTTP: faults whose `orgId` and `id` are 1,024
 * characters, 1,000 per organisation (the most one may queue), until the queue refuses one.
 * Resolves to how many were queued.
 */
export async function fillFaultQueue(url: string): Promise<number> {
  const long = (c: string, i: number) => `${c.repeat(1018)}-${String(i).padStart(5, '0')}`
  let queued = 0
  for (let o = 0; ; o++) {
    const { orgId } = await createTenant(url, { orgId: long('o', o) })
    for (let i = 0; i < 1000; i++) {
      const answer = await send({
        url: `${url}/__mock/faults`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ operation: 'delete', status: 500, orgId, id: long('i', i) }),
      })
      if (answer.status === 400) return queued
      if (answer.status !== 204) throw new Error(`a fault answered ${answer.status}`)
      queued++
    }
  }
}

/** `GET /__mock/faults` once a second for `seconds`, each read whole: the inspector's poll, and more. */
export async function pollFaults(url: string, seconds: number): Promise<number> {
  let bytes = 0
  const end = performance.now() + seconds * 1000
  while (performance.now() < end) {
    const started = performance.now()
    bytes = (await send({ url: `${url}/__mock/faults` })).body.length
    await new Promise((resolve) =>
      setTimeout(resolve, Math.max(0, 1000 - (performance.now() - started))),
    )
  }
  return bytes
}
