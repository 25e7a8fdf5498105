import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from '../../src/server/server.ts'
import { expectError, expectIdentified } from '../support/expect-body.ts'

/**
 * The group bomb of the review: one identify with 110,000 `userGroups` ran for seconds inside the
 * serialised core and held up every other request. It is refused now, and the largest identify
 * the limits let through does not hold up a small one sent beside it.
 */

let server: RunningServer
let key = ''
beforeAll(async () => {
  // Room for every maximal request's thousand new groups in one organisation.
  server = await startServer({ port: 0, maxUserGroupsPerOrganisation: 100_000 })
  key = server.core.credentials[0]?.apiKeys[0] ?? ''
})
afterAll(() => server.close())

function identify(body: object) {
  return fetch(`${server.url}/api/v1/users/identify`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
}

/** The largest identify the limits accept: every field full, 1,000 new groups of 256 characters. */
function maximal(n: number) {
  const text = 'x'.repeat(1024)
  return {
    id: `maximal-${n}-${'m'.repeat(1000)}`,
    orgId: 'org-1',
    data: {
      firstName: text,
      lastName: text,
      country: text,
      region: text,
      userGroups: Array.from({ length: 1000 }, (_, g) => `${n}-${g}-`.padEnd(256, 'g')),
    },
  }
}

describe('the group bomb', () => {
  it('refuses 110,000 userGroups with 400 and keeps nothing of them', async () => {
    const before = await server.core.state()
    // Short names, so that the body stays under the 1 MiB limit (920 KB in the review).
    const userGroups = Array.from({ length: 110_000 }, (_, i) => `g${i.toString(36)}`)
    expect(JSON.stringify({ userGroups }).length).toBeLessThan(1024 * 1024)
    await expectError(
      await identify({ id: 'bomb', orgId: 'org-1', data: { userGroups } }),
      400,
      'Invalid request parameters',
    )
    expect(await server.core.state()).toEqual(before)
  })

  it('holds up a small identify by one maximal identify at most, as two clients in a loop', async () => {
    // One client sends maximal identify calls one after another, the other small ones: the
    // core serves them in turn, so each small call waits for one maximal call at most, never a
    // queue of them (the review's two clients pushed a small identify to 3.4 s).
    let maximalDone = 0
    let smallDone = 0
    let running = true
    const bigClient = (async () => {
      for (let n = 0; n < 6; n++) {
        const answer = await expectIdentified(await identify(maximal(n)))
        expect(answer.data.userGroups).toHaveLength(1000)
        maximalDone++
        // The small client never falls more than one maximal call behind.
        expect(smallDone).toBeGreaterThanOrEqual(maximalDone - 1)
      }
      running = false
    })()
    const smallClient = (async () => {
      while (running) {
        await expectIdentified(await identify({ id: 'small', orgId: 'org-1' }))
        smallDone++
      }
    })()
    await Promise.all([bigClient, smallClient])
    expect(smallDone).toBeGreaterThanOrEqual(5)
  })
})
