import { describe, expect, it } from 'vitest'
import { createMockApi } from '../../src/root/index.ts'

const organisations = [{ orgId: 'acme', apiKeys: ['test-key'] }]
const origin = 'https://api.example.test'

/**
 * An API call runs at once when nothing else is queued, but never beside an operation under way:
 * one sent while a reset replaces the records is answered after it, against the new records.
 */
describe('an API call sent while a reset is under way', () => {
  it('is answered after the reset, and what it changed is kept', async () => {
    const api = createMockApi({ organisations })
    await api.ready
    const resetting = api.reset()
    const identified = api.fetch(`${origin}/api/v1/users/identify`, {
      method: 'POST',
      headers: { authorization: 'Bearer test-key', 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'after-the-reset', orgId: 'acme' }),
    })
    await resetting
    expect((await identified).status).toBe(200)
    const state = await api.state()
    expect(state.users.map((u) => u.id)).toContain('after-the-reset')
  })
})
