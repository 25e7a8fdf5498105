import 'identify-api-mock/vitest'
import { beforeAll, describe, expect, it } from 'vitest'
import { createMockApi } from '../../src/root/index.ts'

const origin = 'https://api.example.test'
const auth = { authorization: 'Bearer test-key' }
const api = createMockApi({ organisations: [{ orgId: 'acme', apiKeys: ['test-key'] }] })

beforeAll(async () => {
  const identify = (body: unknown) =>
    api.fetch(`${origin}/api/v1/users/identify`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
  await identify({ id: 'ada', orgId: 'acme', data: { firstName: 'Ada', userGroups: ['g1'] } })
  await identify({ id: 'ada', orgId: 'acme', data: { firstName: 'Ada', country: 'UK' } })
  await identify({ id: 'bob', orgId: 'other' })
  await api.fetch(`${origin}/api/v1/users/acme/ada`, { method: 'DELETE', headers: auth })
  await api.fetch(`${origin}/api/v1/users/acme/ada`, { method: 'DELETE', headers: auth })
})

describe('toHaveIdentified', () => {
  it('matches a deep partial of the body, with asymmetric matchers', () => {
    expect(api).toHaveIdentified()
    expect(api).toHaveIdentified({ id: 'ada' }, { times: 2 })
    expect(api).toHaveIdentified({ data: { firstName: 'Ada' } }, { times: 2 })
    expect(api).toHaveIdentified({ data: { country: expect.any(String) } }, { times: 1 })
    expect(api).toHaveIdentified({ data: { userGroups: ['g1'] } })
    expect(api).not.toHaveIdentified({ data: { userGroups: ['g2'] } })
    expect(api).not.toHaveIdentified({ id: 'nobody' })
  })

  it('narrows to one answer with status', () => {
    expect(api).toHaveIdentified({ id: 'bob' }, { status: 403, times: 1 })
    expect(api).not.toHaveIdentified({ id: 'bob' }, { status: 200 })
    expect(api).toHaveIdentified(undefined, { status: 200, times: 2 })
  })

  it('fails with what was expected and the calls that were made', () => {
    expect(() => expect(api).toHaveIdentified({ data: { firstName: 'Grace' } })).toThrow(
      [
        'expected the mock to have identified {"data":{"firstName":"Grace"}}, but 0 calls matched.',
        '',
        'identify calls made (3), oldest first:',
        '  1. 200 {"id":"ada","orgId":"acme","data":{"firstName":"Ada","userGroups":["g1"]}}',
        '  2. 200 {"id":"ada","orgId":"acme","data":{"firstName":"Ada","country":"UK"}}',
        '  3. 403 {"id":"bob","orgId":"other"}',
      ].join('\n'),
    )
  })

  it('names the count expected and the asymmetric matchers', () => {
    expect(() =>
      expect(api).toHaveIdentified({ id: expect.any(String) }, { times: 1, status: 200 }),
    ).toThrow(
      'expected the mock to have identified {"id":Any<String>} answered 200 exactly 1 call, but 2 calls matched.',
    )
  })

  it('fails a negation with the calls that did match', () => {
    expect(() => expect(api).not.toHaveIdentified({ id: 'bob' })).toThrow(
      /^expected the mock not to have identified \{"id":"bob"\}, but 1 call matched\.\n\nidentify calls made \(3\)/,
    )
  })
})

describe('toHaveDeleted', () => {
  it('matches orgId, id or both, over every answer unless status narrows it', () => {
    expect(api).toHaveDeleted()
    expect(api).toHaveDeleted({ id: 'ada' }, { times: 2 })
    expect(api).toHaveDeleted({ orgId: 'acme', id: 'ada' }, { status: 200, times: 1 })
    expect(api).toHaveDeleted({ id: 'ada' }, { status: 404, times: 1 })
    expect(api).not.toHaveDeleted({ orgId: 'other' })
  })

  it('counts a call applied before a failure lost its answer by what the mock did, and shows the failure', async () => {
    const lossy = createMockApi({
      organisations: [{ orgId: 'acme', apiKeys: ['test-key'], users: 0 }],
    })
    await lossy.organisations.putUser('acme', 'ada', { registrationStatus: 'registered' })
    lossy.failNext('delete-reset-applied')
    const remove = () =>
      lossy.fetch(`${origin}/api/v1/users/acme/ada`, { method: 'DELETE', headers: auth })
    await expect(remove()).rejects.toThrow(TypeError)
    expect((await remove()).status).toBe(404)
    expect(lossy).toHaveDeleted({ id: 'ada' }, { status: 200, times: 1 })
    expect(() => expect(lossy).toHaveDeleted({ id: 'bob' })).toThrow(
      [
        'delete calls made (2), oldest first:',
        '  1. 200 {"orgId":"acme","id":"ada"} (met reset, applied)',
        '  2. 404 {"orgId":"acme","id":"ada"}',
      ].join('\n'),
    )
  })

  it('says so when no call was made', () => {
    const fresh = createMockApi()
    expect(() => expect(fresh).toHaveDeleted({ id: 'ada' })).toThrow(
      'expected the mock to have deleted {"id":"ada"}, but 0 calls matched.\n\nNo delete calls were made.',
    )
  })

  it('lists only the newest 20 calls', async () => {
    const busy = createMockApi()
    for (let i = 1; i <= 25; i++) {
      await busy.fetch(`${origin}/api/v1/users/org-1/u-${i}`, { method: 'DELETE' })
    }
    let message = ''
    try {
      expect(busy).toHaveDeleted({ id: 'u-0' })
    } catch (error) {
      message = (error as Error).message
    }
    expect(message).toContain(
      'delete calls made (25), oldest first:\n  … 5 older not shown\n  6. 401',
    )
    expect(message).toContain('  25. 401 {"orgId":"org-1","id":"u-25"}')
    expect(message).not.toContain('"u-5"')
  })
})

describe('the matchers refuse', () => {
  it('a value that is not a mock, and options that are not valid', () => {
    expect(() => expect({}).toHaveIdentified()).toThrow(TypeError)
    expect(() => expect(api).toHaveDeleted({}, { times: -1 })).toThrow(/times/)
  })
})
