import { createMockApi } from 'identify-api-mock'
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { greetingWithTheBug } from './greeting.ts'

const api = createMockApi()
const server = setupServer(...api.handlers)
beforeAll(() => server.listen())
afterAll(() => server.close())

it('passes against the full answers, the default', async () => {
  const { orgId, apiKey } = await api.organisations.create({
    users: [{ id: 'grace', registrationStatus: 'registered', firstName: 'Grace' }],
  })
  expect(await greetingWithTheBug({ apiKey, orgId, id: 'ada' })).toBe('Welcome!')
  expect(await greetingWithTheBug({ apiKey, orgId, id: 'grace' })).toBe('Welcome, GRACE!')
})

it('fails in each case of the covering set that leaves firstName out', async () => {
  const failed: string[] = []
  for (const { name } of api.shapes.cases()) {
    const { orgId, apiKey } = await api.organisations.create({ shapes: name })
    await greetingWithTheBug({ apiKey, orgId, id: 'ada' }).catch((error: unknown) => {
      expect(error).toBeInstanceOf(TypeError)
      failed.push(name)
    })
  }
  const leavingItOut = api.shapes.cases().filter((c) => c.forms.firstName === 'absent')
  expect(leavingItOut.length).toBeGreaterThan(0)
  expect(failed).toEqual(leavingItOut.map((c) => c.name))
})
