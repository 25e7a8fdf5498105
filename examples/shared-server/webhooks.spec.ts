import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { useTenant } from 'identify-api-mock/vitest-server'
import { afterAll, beforeAll, expect, it } from 'vitest'

// An organisation of this file's own, and a receiver of this file's own for its webhooks.
const tenant = useTenant({ users: [{ id: 'ada', registrationStatus: 'registered' }] })
const received: string[] = []
const receiver = createServer((request, response) => {
  received.push(String(request.headers['svix-id']))
  request.resume().on('end', () => response.end())
})

beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  const { port } = receiver.address() as AddressInfo
  // The tenant's endpoint gets its organisation's events only, and its resets keep it.
  await tenant.webhooks.add({ url: `http://127.0.0.1:${port}/webhooks` })
})
afterAll(() => new Promise((resolve) => receiver.close(resolve)))

/** The tenant's deliveries, once `count` of them have reached the receiver. */
async function delivered(count: number) {
  for (let tries = 0; tries < 600; tries++) {
    const deliveries = await tenant.webhooks.deliveries()
    if (deliveries.length === count && deliveries.every((d) => d.delivered)) return deliveries
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`${count} deliveries not made within 30 s`)
}

it("gets its own events, and none of another file's", async () => {
  received.length = 0
  const sent = await tenant.raiseEvent({ type: 'notifications.sent', id: 'ada' })
  const started = await tenant.raiseEvent({ type: 'user.course.started', id: 'ada' })
  await delivered(2)
  expect(received).toEqual([sent.id, started.id])
})

it('still has its endpoint after the reset, and only its own', async () => {
  received.length = 0
  const [endpoint, ...others] = await tenant.webhooks.list()
  expect(others).toEqual([])
  expect(endpoint?.orgId).toBe(tenant.orgId)
  const { id } = await tenant.raiseEvent({ type: 'notifications.sent', id: 'ada' })
  await delivered(1)
  expect(received).toEqual([id])
})
