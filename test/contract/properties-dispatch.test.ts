import fc from 'fast-check'
import { expect } from 'vitest'
import { expectedCall, pathOf } from '../support/api-oracle.ts'
import { anyString, apiTarget, httpMethod } from '../support/arbitraries.ts'
import { describeProperties } from '../support/properties.ts'
import { dispatchWayIn } from '../support/way-in.ts'

/**
 * The bulk of the property-based cases, through `MockCore.dispatch`: the one function both the
 * MSW handlers and the HTTP server call, so every rule is exercised here at full speed, with
 * header values no HTTP transport could even carry. properties-msw and properties-http send a
 * subset of the same cases through the two real ways in.
 */
describeProperties('MockCore.dispatch', dispatchWayIn, {
  bodilessHead: false,
  /** The journal holds the call, the rule it ran, and no secret; an error body holds none either. */
  expectAlso: (c, answer, world, way) => {
    const keys = way.core.credentials.flatMap((credentials) => credentials.apiKeys)
    const journal = way.core.requests()
    expect(journal).toEqual([
      {
        time: '2025-06-01T09:00:00+00:00',
        orgTime: '2025-06-01T09:00:00+00:00',
        method: c.method,
        path: pathOf(c.target),
        status: answer.status,
        durationMs: expect.any(Number),
        delayMs: 0,
        ...expectedCall(world, c, answer.status),
      },
    ])
    const token = answer.status === 200 ? (JSON.parse(answer.text).token as string) : undefined
    for (const secret of [...keys, ...(token ? [token] : [])]) {
      expect(JSON.stringify(journal)).not.toContain(secret)
      if (answer.status !== 200) expect(answer.text).not.toContain(secret)
    }
  },
  properties: [
    {
      title: 'answers any identify call as the contract says, and changes nothing on an error',
      scale: 3,
      cases: {
        wide: true,
        methods: fc.oneof(
          { weight: 12, arbitrary: fc.constant('POST') },
          { weight: 1, arbitrary: fc.constantFrom('post', 'Post', 'GET', 'PUT', 'POST ', '') },
          { weight: 1, arbitrary: anyString },
        ),
        targets: () =>
          fc.oneof(
            { weight: 12, arbitrary: fc.constant('/api/v1/users/identify') },
            {
              weight: 1,
              arbitrary: fc.constantFrom(
                '/api/v1/users/identify?x=1',
                '/api/v1/users/identify#frag',
                '/api/v1/users/identify/',
                '/API/v1/users/identify',
                '/api/v1/users/identify%20',
                '/api/v1/users/%69dentify',
              ),
            },
          ),
      },
    },
    {
      title:
        'answers any method and path under /api (delete, routing, percent-encoding) as the contract says',
      scale: 3,
      cases: {
        wide: true,
        methods: fc.oneof(
          { weight: 8, arbitrary: httpMethod() },
          {
            weight: 1,
            arbitrary: fc.constantFrom('delete', 'Delete', 'CONNECT', 'PRI', 'X-Y', ''),
          },
          { weight: 1, arbitrary: anyString },
        ),
        targets: apiTarget,
        bodyFreq: 3,
      },
    },
  ],
})
