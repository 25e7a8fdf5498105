import { apiTarget, httpMethod } from '../support/arbitraries.ts'
import { describeProperties } from '../support/properties.ts'
import { type ApiCase, identifyCalls } from '../support/property-world.ts'
import { mswWayIn } from '../support/way-in.ts'

/**
 * The property-based cases through the in-process way in: the MSW handlers under `setupServer`,
 * called with `fetch` as a consumer's code calls them. Only what `fetch` can send is sent, and
 * the contract is checked against the request as it arrives (fetch resolves dot segments and
 * drops the fragment).
 */
describeProperties('the MSW handlers', mswWayIn, {
  bodilessHead: true,
  /** `fetch` sends no body with GET or HEAD. */
  sent: (c) => (c.method === 'GET' || c.method === 'HEAD' ? { ...c, body: null } : c),
  arriving: (c) => {
    const url = new URL(`http://x${c.target}`)
    const headers = new Headers(c.otherHeaders)
    if (c.authorization !== null) headers.set('authorization', c.authorization)
    if (c.contentType !== null) headers.set('content-type', c.contentType)
    return {
      ...c,
      target: url.pathname + url.search,
      authorization: headers.get('authorization'),
      contentType: headers.get('content-type'),
    }
  },
  properties: [
    {
      title: 'answers any identify call as the contract says, and changes nothing on an error',
      cases: identifyCalls(httpMethod(['TRACE'])),
    },
    {
      title: 'answers any method and path under /api as the contract says',
      cases: { wide: false, methods: httpMethod(['TRACE']), targets: apiTarget, bodyFreq: 3 },
      keep: staysUnderApi,
    },
  ],
})

/** The handlers answer everything under `/api/`; a target that resolves elsewhere is not theirs. */
function staysUnderApi(c: ApiCase) {
  return new URL(`http://x${c.target}`).pathname.startsWith('/api/')
}
