import { createMockApi } from 'identify-api-mock'
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { greeting } from './greeting.ts'

const api = createMockApi()
const server = setupServer(...api.handlers)
beforeAll(() => server.listen())
afterAll(() => server.close())

describe.each(api.shapes.cases())('in the answer shape $name', ({ name }) => {
  it('greets the user, whatever fields the answer leaves out', async () => {
    const { orgId, apiKey } = await api.organisations.create({ shapes: name })
    expect(await greeting({ apiKey, orgId, id: 'ada' })).toMatch(/^Welcome/)
  })
})

it("met every case of the covering set: the mock's coverage says what the suite proved", () => {
  const met = api.coverage().items.filter((item) => item.count > 0)
  expect(met.map((item) => item.id)).toEqual([
    'identify.200.created',
    ...api.shapes.cases().map(({ name }) => `shape.${name}`),
  ])
})
