import { describe, expect, it } from 'vitest'
import { createMockApi } from '../../src/root/index.ts'
import { startServer } from '../../src/server/server.ts'

const limitMessage =
  'Invalid fault: at most 1000 faults may be queued at once: reset, or let queued ones be taken first'

describe('the fault queue', () => {
  it('holds at most 1,000 faults in all: failNext throws a TypeError past it', async () => {
    const api = createMockApi()
    for (let i = 0; i < 500; i++) {
      api.failNext('identify', { status: 500 })
      api.failNext('delete', { status: 500, count: 3 })
    }
    expect(() => api.failNext('delete', { status: 404 })).toThrow(new TypeError(limitMessage))
    expect(api.queuedFaults()).toHaveLength(1000)
    await api.reset()
    api.failNext('delete', { status: 404 })
    expect(api.queuedFaults()).toHaveLength(1)
  })

  it('answers POST /__mock/faults 400 past the limit, saying it', async () => {
    const server = await startServer({ port: 0 })
    try {
      for (let i = 0; i < 1000; i++) server.core.failNext('identify', { status: 500 })
      const response = await fetch(`${server.url}/__mock/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ operation: 'delete', status: 500 }),
      })
      expect(response.status).toBe(400)
      expect(await response.json()).toEqual({ code: 400, message: limitMessage })
      const queued = await (await fetch(`${server.url}/__mock/faults`)).json()
      expect(queued).toHaveLength(1000)
    } finally {
      await server.close()
    }
  })
})
